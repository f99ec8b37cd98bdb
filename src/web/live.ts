/**
 * Live updates by server-sent events. Every commit, by any coordinator,
 * appends its scope to the board's change log (`.work/changes`); the run
 * watcher tells us when it grew, and each open page whose topic the commit
 * touches (`work`: any run; `run:<id>`: that run) gets a `changed` event.
 * No polling: the watch starts with the first listener and stops with the last.
 * A page says how long the log was when it was rendered (`from`), so a change
 * landing between the render and the stream's start is not missed. Streams
 * are capped (stream-caps.ts): past a cap the oldest is told `closed` and ended.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { watchCommits, type ChangeCursor, type ServedBoard as Board } from '../service/web-board.js';
import { toClose, type Holder } from './stream-caps.js';

/** A comment line this often keeps proxies and the server's idle timeout from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

interface Listener extends Holder {
  topic: string;
  res: ServerResponse;
}

/** Told to a stream closed for a newer one; the page's script stops listening instead of reconnecting. */
const CLOSED = `event: closed\ndata: ${JSON.stringify({ reason: 'too many live pages open: this one stopped updating; reload it to resume' })}\n\n`;

/** What a stream is given of a signed-in request: the web's Request has these and more. */
export interface StreamRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  actor: { email: string };
  me: { csrf: string };
}

export class Live {
  private readonly listeners = new Set<Listener>();
  private watch: { close(): void } | null = null;
  /** How far this stream's watch has read the change log. */
  private cursor: ChangeCursor = { log: '', offset: 0 };
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(private readonly board: Board) {}

  async stream(r: StreamRequest): Promise<void> {
    const topic = r.url.searchParams.get('topic') ?? 'work';
    r.req.socket.setTimeout(0);
    r.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    r.res.write(': live\n\n');
    // A session's CSRF token is unique to it and known here; a bearer token has none ('').
    const l: Listener = { topic, res: r.res, session: r.me.csrf || null, person: r.actor.email.toLowerCase() };
    for (const old of toClose([...this.listeners], l)) {
      this.listeners.delete(old);
      old.res.end(CLOSED);
    }
    if (this.listeners.size === 0) this.begin();
    this.listeners.add(l);
    r.res.once('close', () => {
      this.listeners.delete(l);
      if (this.listeners.size === 0) this.end();
    });
    const from = Number(r.url.searchParams.get('from') ?? NaN);
    if (Number.isSafeInteger(from) && from >= 0) this.since(l, from);
  }

  /** The change log's length now: what a page rendered now has seen. */
  static offset(board: Board): number {
    return board.changes.end().offset;
  }

  /**
   * Tell one new listener about what was committed after its page was rendered and before it
   * listened (what the watch reads from here on, it is told with the rest). A page's offset is
   * into the log as it was then: if the log was started afresh since, there is nothing to say.
   */
  private since(l: Listener, from: number): void {
    try {
      const read = this.board.changes.read({ log: this.cursor.log, offset: from }, this.cursor.offset);
      if (!read.restarted) send([l], scopes(read.lines));
    } catch {
      // unreadable now: the page hears of the next change
    }
  }

  close(): void {
    for (const l of this.listeners) l.res.end();
    this.listeners.clear();
    this.end();
  }

  private begin(): void {
    this.cursor = this.board.changes.end();
    this.watch = watchCommits(this.board, () => this.readChanges());
    this.heartbeat = setInterval(() => {
      for (const l of this.listeners) l.res.write(': ping\n\n');
    }, HEARTBEAT_MS);
  }

  private end(): void {
    this.watch?.close();
    this.watch = null;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** The scopes committed since we last looked; a log started afresh is read from its start. */
  private readChanges(): void {
    let read;
    try {
      read = this.board.changes.read(this.cursor);
    } catch {
      return; // unreadable now: the next change tries again from the same place
    }
    this.cursor = read.cursor;
    send(this.listeners, scopes(read.lines));
  }
}

interface Scopes {
  runs: Set<string>;
  board: boolean;
}

/** The runs, and whether the board itself, that some lines of the change log touched. */
function scopes(lines: readonly string[]): Scopes {
  const runs = new Set<string>();
  let board = false;
  for (const line of lines) {
    const m = /^run (r-[0-9a-z]+)/.exec(line);
    if (m) runs.add(m[1]!);
    else if (line.startsWith('board')) board = true;
  }
  return { runs, board };
}

function send(listeners: Iterable<Listener>, { runs, board }: Scopes): void {
  for (const l of listeners) {
    const hit = l.topic === 'work' ? runs.size > 0 || board : l.topic.startsWith('run:') ? runs.has(l.topic.slice(4)) : board;
    if (hit) l.res.write(`event: changed\ndata: ${JSON.stringify({ runs: [...runs], board })}\n\n`);
  }
}
