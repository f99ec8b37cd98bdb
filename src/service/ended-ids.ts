/**
 * The ids of the ended runs whose entries the run index does not hold in
 * memory (run-index-file.ts): "is this run among the ended ones?" answered
 * without reading their entries back, which at 100k runs is a second and a
 * hundred megabytes. Kept packed: every id's bytes in one sorted buffer,
 * 2.8 MB at 100k runs where a Set of the same strings takes about 10 MB.
 * Ids added or removed since are kept beside it and folded in when many.
 */

/** A run id's length: 'r-' and a 26-character ULID (layout.ts RUN_ID_PATTERN); any other id stays beside the buffer. */
const WIDTH = 28;
/** How many ids added or removed are kept beside the buffer before they are folded in. */
const FOLD_AT = 4096;

export class EndedIds {
  /** Sorted ids, WIDTH bytes each. */
  private packed: Buffer = Buffer.alloc(0);
  /** Whether the file's ids are in `packed`; until then only the ids added and removed since are known. */
  private complete = false;
  private readonly added = new Set<string>();
  private readonly removed = new Set<string>();

  /** Every id there is, when they are known (a cold build, or entries let go from memory). */
  static of(ids: Iterable<string>): EndedIds {
    const out = new EndedIds();
    out.fill(ids);
    return out;
  }

  /** Whether `id` is among them; undefined when the answer needs the file's ids, which are not read yet. */
  has(id: string): boolean | undefined {
    if (this.added.has(id)) return true;
    if (this.removed.has(id)) return false;
    return this.complete ? this.at(id) >= 0 : undefined;
  }

  add(id: string): void {
    this.removed.delete(id);
    this.added.add(id);
    this.fold(false);
  }

  delete(id: string): void {
    this.added.delete(id);
    this.removed.add(id);
    this.fold(false);
  }

  /** More ids beside the buffer than it keeps there, and the file's ids not read yet: read them, then they fold. */
  get wantsFile(): boolean {
    return !this.complete && this.added.size + this.removed.size > FOLD_AT;
  }

  /** The file's ids, read at last: what was added or removed since still counts over them. */
  fill(ids: Iterable<string>): void {
    const own = new Set<string>();
    for (const id of ids) {
      if (this.removed.has(id) || this.added.has(id)) continue;
      if (id.length === WIDTH) own.add(id);
      else this.added.add(id);
    }
    this.packed = packSorted([...own].sort());
    this.complete = true;
    this.fold(true);
  }

  /** The index of `id` in `packed`, or -1. */
  private at(id: string): number {
    if (id.length !== WIDTH) return -1;
    const key = Buffer.from(id, 'latin1');
    let lo = 0;
    let hi = this.packed.length / WIDTH - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.packed.compare(key, 0, WIDTH, mid * WIDTH, mid * WIDTH + WIDTH);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Merge the ids beside the buffer into it (one pass over it), once they are many or `now`. */
  private fold(now: boolean): void {
    if (!this.complete || (!now && this.added.size + this.removed.size <= FOLD_AT)) return;
    const drop = new Set<number>();
    for (const id of this.removed) {
      const i = this.at(id);
      if (i >= 0) drop.add(i);
    }
    const adding = [...this.added]
      .filter((id) => id.length === WIDTH && this.at(id) < 0)
      .sort()
      .map((id) => Buffer.from(id, 'latin1'));
    const n = this.packed.length / WIDTH;
    const out = Buffer.allocUnsafe((n - drop.size + adding.length) * WIDTH);
    let o = 0;
    let next = adding.shift();
    for (let i = 0; i <= n; i++) {
      // Every new id that sorts before the i-th packed one (all that are left, past the end).
      while (next && (i === n || this.packed.compare(next, 0, WIDTH, i * WIDTH, i * WIDTH + WIDTH) > 0)) {
        o += next.copy(out, o);
        next = adding.shift();
      }
      if (i < n && !drop.has(i)) o += this.packed.copy(out, o, i * WIDTH, i * WIDTH + WIDTH);
    }
    this.packed = out;
    this.removed.clear();
    // An id of another length cannot be packed: it stays beside the buffer.
    for (const id of this.added) if (id.length === WIDTH) this.added.delete(id);
  }
}

function packSorted(ids: readonly string[]): Buffer {
  const out = Buffer.allocUnsafe(ids.length * WIDTH);
  ids.forEach((id, i) => out.write(id, i * WIDTH, 'latin1'));
  return out;
}
