/**
 * A set of many strings of one length (ids, file names) that a long-lived
 * process keeps for good, packed: every one's bytes in one sorted buffer,
 * 2.8 MB for 100k run ids where a Set of the same strings takes about 10 MB.
 * What is added or removed since is kept beside the buffer and folded in
 * when many. It may start knowing only those (`complete` false): the rest,
 * kept in a file, are read in by `fill` when an answer needs them.
 * ASCII strings only; one of another length stays beside the buffer.
 */

/** How many ids added or removed are kept beside the buffer before they are folded in. */
const FOLD_AT = 4096;

export class PackedSet {
  /** Sorted ids, `width` bytes each. */
  private packed: Buffer = Buffer.alloc(0);
  /** Whether every member is known; until `fill`, only the ids added and removed since. */
  private complete = false;
  private readonly added = new Set<string>();
  private readonly removed = new Set<string>();

  constructor(private readonly width: number) {}

  /** A set of these ids, every member known. */
  static of(width: number, ids: Iterable<string>): PackedSet {
    const out = new PackedSet(width);
    out.fill(ids);
    return out;
  }

  /** Whether `id` is a member; undefined when the answer needs the members not read yet. */
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

  /** More ids beside the buffer than it keeps there, and the rest not read yet: read them, then they fold. */
  get wantsFile(): boolean {
    return !this.complete && this.added.size + this.removed.size > FOLD_AT;
  }

  /** The members not known until now, read at last: what was added or removed since still counts over them. */
  fill(ids: Iterable<string>): void {
    const own = new Set<string>();
    for (const id of ids) {
      if (this.removed.has(id) || this.added.has(id)) continue;
      if (id.length === this.width) own.add(id);
      else this.added.add(id);
    }
    this.packed = packSorted([...own].sort(), this.width);
    this.complete = true;
    this.fold(true);
  }

  /** Every member known (all of them once `fill` was called). */
  *values(): Generator<string> {
    for (let at = 0; at < this.packed.length; at += this.width) {
      const id = this.packed.toString('latin1', at, at + this.width);
      if (!this.removed.has(id)) yield id;
    }
    for (const id of this.added) if (this.at(id) < 0) yield id;
  }

  /** The index of `id` in `packed`, or -1. */
  private at(id: string): number {
    if (id.length !== this.width) return -1;
    const key = Buffer.from(id, 'latin1');
    let lo = 0;
    let hi = this.packed.length / this.width - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.packed.compare(key, 0, this.width, mid * this.width, mid * this.width + this.width);
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
      .filter((id) => id.length === this.width && this.at(id) < 0)
      .sort()
      .map((id) => Buffer.from(id, 'latin1'));
    const n = this.packed.length / this.width;
    const out = Buffer.allocUnsafe((n - drop.size + adding.length) * this.width);
    let o = 0;
    let next = adding.shift();
    for (let i = 0; i <= n; i++) {
      // Every new id that sorts before the i-th packed one (all that are left, past the end).
      while (next && (i === n || this.packed.compare(next, 0, this.width, i * this.width, i * this.width + this.width) > 0)) {
        o += next.copy(out, o);
        next = adding.shift();
      }
      if (i < n && !drop.has(i)) o += this.packed.copy(out, o, i * this.width, i * this.width + this.width);
    }
    this.packed = out;
    this.removed.clear();
    // An id of another length cannot be packed: it stays beside the buffer.
    for (const id of this.added) if (id.length === this.width) this.added.delete(id);
  }
}

function packSorted(ids: readonly string[], width: number): Buffer {
  const out = Buffer.allocUnsafe(ids.length * width);
  ids.forEach((id, i) => out.write(id, i * width, 'latin1'));
  return out;
}
