/**
 * A Map that forgets its least recently used entries past a size, for the
 * caches a long-lived server keeps (runs read, chains verified): memory stays
 * flat however large the board or long the uptime, at the cost of a re-read.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }

  override get(key: K): V | undefined {
    if (!super.has(key)) return undefined;
    const v = super.get(key) as V;
    super.delete(key);
    super.set(key, v);
    return v;
  }

  /** The value without counting it as a use (an update that is not a read). */
  peek(key: K): V | undefined {
    return super.get(key);
  }

  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    while (this.size > this.max) super.delete(super.keys().next().value as K);
    return this;
  }
}
