/**
 * Caches follow commits (docs/architecture.md "How caches follow commits"):
 * the store tells every cache keyed by run of each commit, so no writer
 * tells a cache anything by hand. A new write path cannot forget a call
 * that no write path makes.
 */
import { describe, expect, it } from 'vitest';
import { readSrc } from './src-graph.js';

/** The subscribers: the only files that may drop or keep a run's cached state. */
const SUBSCRIBERS = ['service/run-reader.ts', 'service/run-index.ts'];

/** Code without its comments, so a comment may name what code may not call. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

describe('caches follow commits', () => {
  const { files } = readSrc();
  const norm = (f: string) => f.replace(/\\/g, '/');

  it("no file but the subscribers drops or keeps a run's cached state by hand (forget, forgetLastGood, seenValid)", () => {
    const calls = [...files]
      .filter(([file]) => !SUBSCRIBERS.includes(norm(file)))
      .flatMap(([file, f]) =>
        [...code(f.text).matchAll(/\b(\w+)\s*\.\s*(forget|forgetLastGood|seenValid)\s*\(/g)].filter((m) => /reader|index/i.test(m[1]!) || m[2] !== 'forget').map((m) => `${norm(file)}: ${m[0]}`),
      );
    expect(calls).toEqual([]);
  });

  it('the reader keeps those to itself, and every subscriber listens to the store', () => {
    const reader = code(files.get([...files.keys()].find((f) => norm(f) === 'service/run-reader.ts')!)!.text);
    expect(reader).not.toMatch(/^\s+(?:async\s+)?(?:forget|forgetLastGood|seenValid)\s*\(/m);
    for (const s of SUBSCRIBERS) {
      const f = files.get([...files.keys()].find((k) => norm(k) === s)!)!;
      expect(code(f.text), `${s} subscribes to the store's commits`).toMatch(/\.store\.onCommit\(/);
    }
  });

  it('the writers hold no cache plumbing', () => {
    const writes = code(files.get([...files.keys()].find((f) => norm(f) === 'service/writes.ts')!)!.text);
    expect(writes).not.toMatch(/\breader\s*\.\s*(changed|forget\w*|seenValid|distrust\w*)\s*\(/);
  });
});
