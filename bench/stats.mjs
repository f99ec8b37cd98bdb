// Percentiles of a list of timings, shared by the bench's sections (NaN for an empty list).
export const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

export const median = (xs) => pct(xs, 50);

/** The p50 of `calls` timed calls of `fn`, in ms, after one untimed warm-up call. */
export async function p50Of(fn, calls) {
  await fn();
  const ms = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return pct(ms, 50);
}
