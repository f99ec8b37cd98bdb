/**
 * A map's value for a key the caller built the map to hold. Where a missing
 * key can only be a bug in the caller, this says so by name instead of a
 * non-null assertion that would carry `undefined` on.
 */
export function entry<K, V extends NonNullable<unknown> | null>(map: ReadonlyMap<K, V>, key: K): V {
  const value = map.get(key);
  if (value === undefined) throw new Error(`internal: no entry for ${String(key)}`);
  return value;
}
