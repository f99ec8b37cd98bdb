/** `key=value` pairs as the CLI's `--input` and the web app's run filter take them: a value is JSON when it parses, else text. */

export function parsePairs(pairs: readonly string[]): { values: Record<string, unknown>; bad: string[] } {
  const values: Record<string, unknown> = {};
  const bad: string[] = [];
  for (const p of pairs) {
    const i = p.indexOf('=');
    if (i <= 0) {
      bad.push(p);
      continue;
    }
    const raw = p.slice(i + 1);
    let v: unknown = raw;
    try {
      v = JSON.parse(raw);
    } catch {
      // a plain string
    }
    values[p.slice(0, i)] = v;
  }
  return { values, bad };
}
