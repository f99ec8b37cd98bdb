/**
 * A board on disk: find it, create it, open it. Every command and server
 * works on a `Board`; its `store` is the only way files change.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { eventBy, type Author } from './author.js';
import { ChangeLog } from './changes.js';
import { BoardError } from './errors.js';
import { STATE_DIR, WORK_FILE } from './layout.js';
import { Listing } from './listing.js';
import { DEFAULT_SETTINGS, manifestFrom, newerFormat, newManifestData, type Manifest } from './manifest.js';
import { parseMarkdown } from '../core/markdown.js';
import { WorkState, type Distrusted } from './state.js';
import { BoardStore, type StoreOptions } from './store.js';
import { NAME_PATTERN } from '../process/model.js';

/** How long a writer waits for a lock before answering `retry`. */
const LOCK_TIMEOUT_MS = 30_000;

export const BOARD_GITIGNORE = `# workboard: coordinator state (locks, leases, journals, secrets) is never committed
${STATE_DIR}/
# temp files of an interrupted write; the next writer removes them
*.tmp-*
`;

/** Board files are hashed byte for byte: git must never rewrite their line ends. */
export const BOARD_GITATTRIBUTES = `*.md text eol=lf
*.jsonl text eol=lf
files/** -text
`;

export class Board {
  private seenManifest: string;
  /** The coordinator's uncommitted records under `.work/`: the only way anything outside the board touches them. */
  readonly state: WorkState;
  /** Names, stats and stamps of board files as they are now, for caches that compare against them. */
  readonly listing: Listing;
  /** The change log every commit appends its scope to, read from a cursor. */
  readonly changes: ChangeLog;

  private constructor(
    readonly root: string,
    readonly store: BoardStore,
    private current: Manifest,
    manifestHash: string,
  ) {
    this.seenManifest = manifestHash;
    this.state = new WorkState(root, store.options);
    this.listing = new Listing(root);
    this.changes = new ChangeLog(root);
  }

  /** WORK.md as last read; `refresh` picks up edits made since (people, groups, settings). */
  get manifest(): Manifest {
    return this.current;
  }

  /** WORK.md's inode, size and mtime when last read: a request only re-reads it when they change. */
  private seenStat = '';

  /** Re-read WORK.md when it changed; a long-running server calls this before each request. */
  async refresh(): Promise<void> {
    const stamp = this.listing.stamp(WORK_FILE);
    if (stamp === this.seenStat) return;
    this.seenStat = stamp;
    const doc = await this.store.read(WORK_FILE).catch(() => null);
    if (doc && doc.sha256 !== this.seenManifest) {
      this.current = manifestFrom(doc);
      this.seenManifest = doc.sha256;
    }
  }

  /** State records read as absent, by every reader of `.work/` (see WorkState.distrust). */
  private distrust(distrusted: Distrusted, readOnly: boolean): void {
    this.state.distrust(distrusted);
    this.store.distrust(distrusted, readOnly);
  }

  /**
   * `trust.distrusted`: the `.work/` records to read as absent (see `distrust`), known before WORK.md is read;
   * `trust.readOnly`: the caller promises to change nothing, so no decode is kept for the next (kept-decodes.ts).
   */
  static async open(root: string, options: Partial<StoreOptions> = {}, trust?: { distrusted: Distrusted; readOnly?: boolean }): Promise<Board> {
    const abs = path.resolve(root);
    const probe = new BoardStore(abs, { lockStaleMs: DEFAULT_SETTINGS.lockStaleSeconds * 1000, lockTimeoutMs: LOCK_TIMEOUT_MS, ...options });
    if (trust) probe.distrust(trust.distrusted, trust.readOnly ?? false);
    const doc = await probe.read(WORK_FILE).catch(async (e: unknown) => {
      // WORK.md of a newer format fails our checks (its format, maybe fields we do not know): say that in one line instead.
      const raw = await probe.readBytes(WORK_FILE);
      const front = raw === null ? null : parseMarkdown(raw.toString('utf8'));
      const newer = front?.ok && typeof front.value.data === 'object' && front.value.data !== null ? newerFormat(front.value.data as Record<string, unknown>) : null;
      throw newer ? new BoardError('invalid', newer) : e;
    });
    if (!doc) throw new BoardError('invalid', `no board at ${abs}: ${WORK_FILE} is missing (run workboard init)`);
    const manifest = manifestFrom(doc);
    const store = new BoardStore(abs, {
      lockStaleMs: manifest.settings.lockStaleSeconds * 1000,
      lockTimeoutMs: LOCK_TIMEOUT_MS,
      ...options,
    });
    const board = new Board(abs, store, manifest, doc.sha256);
    if (trust) board.distrust(trust.distrusted, trust.readOnly ?? false);
    return board;
  }

  /**
   * Find the board root: `--board`, then WORKBOARD_DIR, then the nearest
   * directory holding WORK.md from `cwd` upwards, as git finds `.git`.
   */
  static locate(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
    if (explicit) return path.resolve(cwd, explicit);
    if (env.WORKBOARD_DIR) return path.resolve(cwd, env.WORKBOARD_DIR);
    for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
      if (existsSync(path.join(dir, WORK_FILE))) return dir;
      if (path.dirname(dir) === dir) break;
    }
    throw new BoardError('invalid', `no board found: no ${WORK_FILE} in ${cwd} or any parent; pass --board <dir>, set WORKBOARD_DIR, or run workboard init`);
  }

  /** Create a new board in `dir`: WORK.md, .gitignore, folders. Refuses a folder that already has a board. */
  static async init(dir: string, opts: { name?: string; title?: string; description?: string; actor: string | Author }): Promise<Board> {
    const root = path.resolve(dir);
    if (existsSync(path.join(root, WORK_FILE))) throw new BoardError('conflict', `${root} already has a board (${WORK_FILE} exists)`);
    const name = opts.name ?? slug(path.basename(root));
    if (!NAME_PATTERN.test(name) || name.length > 64) {
      throw new BoardError('invalid', `board name "${name}" must be lowercase words joined by hyphens; pass --name`, [{ path: 'name', message: 'must match ^[a-z0-9]+(-[a-z0-9]+)*$' }]);
    }
    await fs.mkdir(root, { recursive: true });
    for (const d of ['processes', 'runs', 'audit', 'files', STATE_DIR]) await fs.mkdir(path.join(root, d), { recursive: true });
    for (const d of ['processes', 'runs', 'files']) {
      const keep = path.join(root, d, '.gitkeep');
      if (!existsSync(keep)) await fs.writeFile(keep, '');
    }
    const gitignore = path.join(root, '.gitignore');
    const existing = existsSync(gitignore) ? await fs.readFile(gitignore, 'utf8') : '';
    if (!existing.split('\n').some((l) => l.trim() === `${STATE_DIR}/`)) {
      await fs.writeFile(gitignore, `${existing}${existing && !existing.endsWith('\n') ? '\n' : ''}${BOARD_GITIGNORE}`);
    }
    const attributes = path.join(root, '.gitattributes');
    if (!existsSync(attributes)) await fs.writeFile(attributes, BOARD_GITATTRIBUTES);
    const store = new BoardStore(root, { lockStaleMs: DEFAULT_SETTINGS.lockStaleSeconds * 1000, lockTimeoutMs: LOCK_TIMEOUT_MS });
    const title = opts.title ?? name;
    const description = opts.description ?? 'Runs of our processes, coordinated by workboard.';
    const by = typeof opts.actor === 'string' ? { actor: opts.actor, osUser: null } : opts.actor;
    await store.apply({ kind: 'board' }, async () => ({
      value: undefined,
      commit: {
        files: [{ rel: WORK_FILE, data: newManifestData(name, title, description), body: `# ${title}\n\n${description}\n`, readRev: 0 }],
        state: [],
        events: [eventBy(by, 'board.created', WORK_FILE, { name })],
      },
    }));
    return Board.open(root);
  }
}

function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 64) || 'board'
  );
}
