/**
 * Closing an HTTP server quickly without cutting a call short: it stops
 * accepting, closes at once every connection that carries no request (idle
 * keep-alive sockets, and ones still sending headers or nothing at all),
 * closes each busy connection as soon as its answer is sent, and after a
 * grace period closes whatever is left (a stream that never ends). A call
 * whose socket is closed still runs to its end in this process: closing a
 * socket never stops a transaction, it only loses an answer the client can
 * have again by repeating the call with its requestId.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface Closer {
  /** Resolves once every connection is gone. */
  close(graceMs: number): Promise<void>;
}

/** Track which sockets carry a request in flight, from now on; call before `listen`. */
export function trackCalls(server: Server): Closer {
  const sockets = new Set<Socket>();
  const busy = new Map<Socket, number>();
  let closing = false;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => {
      sockets.delete(s);
      busy.delete(s);
    });
  });
  const started = (req: IncomingMessage, res: ServerResponse) => {
    const s = req.socket;
    busy.set(s, (busy.get(s) ?? 0) + 1);
    res.once('close', () => {
      const n = (busy.get(s) ?? 1) - 1;
      if (n > 0) busy.set(s, n);
      else {
        busy.delete(s);
        if (closing) s.destroy();
      }
    });
  };
  server.on('request', started);
  server.on('checkContinue', started);
  return {
    close(graceMs) {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) if (!busy.has(s)) s.destroy();
      const late = setTimeout(() => {
        for (const s of sockets) s.destroy();
      }, graceMs);
      late.unref();
      return closed.finally(() => clearTimeout(late));
    },
  };
}
