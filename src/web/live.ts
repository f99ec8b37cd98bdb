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
import { promises as fs, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Board } from '../board/board.js';
import { CHANGES_FILE } from '../board/layout.js';
import { RunWatch } from '../board/run-watch.js';
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
  private watch: RunWatch | null = null;
  private offset = 0;
  private reading: Promise<void> = Promise.resolve();
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
    if (this.listeners.size === 0) await this.begin();
    this.listeners.add(l);
    r.res.once('close', () => {
      this.listeners.delete(l);
      if (this.listeners.size === 0) this.end();
    });
    const from = Number(r.url.searchParams.get('from') ?? NaN);
    if (Number.isSafeInteger(from) && from >= 0) await this.since(l, from);
  }

  /** The change log's length now: what a page rendered now has seen. */
  static offset(board: Board): number {
    try {
      return statSync(board.store.abs(CHANGES_FILE)).size;
    } catch {
      return 0;
    }
  }

  /** Tell one new listener about what was committed after its page was rendered and before it listened. */
  private async since(l: Listener, from: number): Promise<void> {
    const buf = await fs.readFile(this.board.store.abs(CHANGES_FILE)).catch(() => null);
    if (buf === null || from >= buf.length) return;
    const end = Math.min(buf.lastIndexOf(0x0a) + 1, this.offset);
    if (end <= from) return;
    send([l], scopes(buf.subarray(from, end).toString('utf8')));
  }

  close(): void {
    for (const l of this.listeners) l.res.end();
    this.listeners.clear();
    this.end();
  }

  private async begin(): Promise<void> {
    this.offset = (await fs.stat(this.board.store.abs(CHANGES_FILE)).catch(() => ({ size: 0 }))).size;
    this.watch = new RunWatch(this.board.root, CHANGES_FILE, (e) => {
      if (e.kind !== 'run') this.reading = this.reading.then(() => this.readChanges());
    });
    this.watch.start();
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

  /** The scopes committed since we last looked; a log started afresh (shorter than before) is read from its start. */
  private async readChanges(): Promise<void> {
    let text: string;
    try {
      const buf = await fs.readFile(this.board.store.abs(CHANGES_FILE));
      if (buf.length < this.offset) this.offset = 0;
      const end = buf.lastIndexOf(0x0a) + 1;
      if (end <= this.offset) return;
      text = buf.subarray(this.offset, end).toString('utf8');
      this.offset = end;
    } catch {
      return;
    }
    send(this.listeners, scopes(text));
  }
}

interface Scopes {
  runs: Set<string>;
  board: boolean;
}

/** The runs, and whether the board itself, that some lines of the change log touched. */
function scopes(text: string): Scopes {
  const runs = new Set<string>();
  let board = false;
  for (const line of text.split('\n')) {
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
