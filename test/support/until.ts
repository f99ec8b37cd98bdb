/**
 * Poll until a condition gives a value: for tests that wait on another
 * process (a daemon, a courier) to do something. Throws after `ms`.
 */
export async function until<T>(what: () => Promise<T | undefined> | T | undefined, ms: number, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`condition never held within ${ms} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
