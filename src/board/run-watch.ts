/**
 * Watching run folders for what lands in them, at one OS watch per folder.
 * A recursive watcher over `runs/` keeps a handle and a record for every
 * file of every run ever started, so a long-lived daemon's memory (and the
 * OS's watch budget) would grow with the board's whole history. Only open
 * runs can be worked on, so only their folders are watched, plus `runs/`
 * itself (a run added by git or by hand) and `.work/` (the change log every
 * commit appends to, so commits by other coordinators re-plan the daemon).
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { STATE_DIR } from './layout.js';

export type RunWatchEvent = { kind: 'run'; runId: string } | { kind: 'runs' } | { kind: 'commit' };

export type Closable = Pick<FSWatcher, 'close'>;

/** A folder's watch: `live` until it failed or was closed (a folder that could not be watched never is). */
export interface FolderWatch extends Closable {
  readonly live: boolean;
}

export class RunWatch {
  private readonly folders = new Map<string, FolderWatch>();
  private readonly fixed: Closable[] = [];

  /** `persistent`: whether the watches alone keep the process running (serve's do; a process that ends with its input does not wait for them). */
  constructor(
    private readonly root: string,
    private readonly changeLog: string,
    private readonly onEvent: (e: RunWatchEvent) => void,
    private readonly persistent = true,
  ) {}

  start(): void {
    this.fixed.push(
      watchFolder(path.join(this.root, 'runs'), () => this.onEvent({ kind: 'runs' })),
      watchFolder(path.join(this.root, STATE_DIR), (name) => {
        if (name === path.basename(this.changeLog)) this.onEvent({ kind: 'commit' });
      }),
    );
  }

  /**
   * Watch exactly these runs' folders (each id once): new ones are added, the rest let go.
   * Returns the runs newly watched: an edit may have landed before the watch began.
   */
  follow(runIds: readonly string[]): string[] {
    const added: string[] = [];
    // Most calls add a run or two and let none go: the folders are walked only when some are no longer wanted.
    let kept = 0;
    for (const id of runIds) if (this.folders.has(id)) kept++;
    if (kept < this.folders.size) {
      const want = new Set(runIds);
      for (const [id, w] of this.folders) {
        if (!want.has(id)) {
          w.close();
          this.folders.delete(id);
        }
      }
    }
    for (const id of runIds) {
      if (this.folders.has(id)) continue;
      const w = watchFolder(
        path.join(this.root, 'runs', id),
        (name) => {
          if (name === id) {
            // The folder itself was moved or removed (git can replace a run's folder whole): this watch
            // no longer sees runs/<id>. Let it go, so the next follow watches the folder there now.
            w.close();
            if (this.folders.get(id) === w) this.folders.delete(id);
            this.onEvent({ kind: 'run', runId: id });
            return;
          }
          // A change the OS could not name may be any file's.
          if ((name === '' || name.endsWith('.md')) && !name.includes('.tmp-')) this.onEvent({ kind: 'run', runId: id });
        },
        this.persistent,
      );
      this.folders.set(id, w);
      added.push(id);
    }
    return added;
  }

  get watching(): number {
    return this.folders.size;
  }

  /** Is this run's folder watched now, so that any file renamed or written in it is reported? */
  watches(runId: string): boolean {
    return this.folders.get(runId)?.live === true;
  }

  close(): void {
    for (const w of [...this.fixed, ...this.folders.values()]) w.close();
    this.fixed.length = 0;
    this.folders.clear();
  }
}

/**
 * One OS watch on one folder, calling back with the name of what changed in it.
 * A folder that cannot be watched (gone meanwhile) is simply not watched: the next plan looks at it again.
 */
export function watchFolder(dir: string, onName: (name: string) => void, persistent = true): FolderWatch {
  let w: FSWatcher;
  try {
    w = watch(dir, { persistent }, (_event, name) => onName(name === null ? '' : String(name)));
  } catch {
    return { live: false, close() {} };
  }
  let live = true;
  const close = () => {
    live = false;
    w.close();
  };
  w.on('error', close);
  return {
    get live() {
      return live;
    },
    close,
  };
}
