/**
 * The docs stay true to the repository: every relative link of README.md,
 * CONTRIBUTING.md, CHANGELOG.md and docs/*.md reaches a file (and a heading,
 * when it names one), and the code cites only the repository's own docs
 * (CONTRIBUTING.md "Send a change"): no design notes or specs from outside
 * it, no bare section numbers, and every docs section a comment names exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, citations, headings, outsideReferences, relativeLinks } from './doc-links.js';
import { readSrc, ROOT } from './src-graph.js';

const pages = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((n) => n.endsWith('.md'))
    .map((n) => `docs/${n}`),
];
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');

describe('the docs', () => {
  it('every relative link reaches a file of the repository, and a heading of it when it names one', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of relativeLinks(read(page))) {
        const [target, anchor] = link.split('#') as [string, string | undefined];
        const rel = target === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURI(target)));
        if (!existsSync(path.join(ROOT, rel))) broken.push(`${page}: ${link} (no ${rel})`);
        else if (anchor !== undefined && rel.endsWith('.md') && !anchors(read(rel)).has(anchor)) broken.push(`${page}: ${link} (no heading #${anchor} in ${rel})`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('what the code cites', () => {
  const src = readSrc();
  const texts = [
    ...[...src.files].map(([f, { text }]) => [`src/${f}`, text] as const),
    ...readdirSync(path.join(ROOT, 'bench'))
      .filter((n) => n.endsWith('.mjs'))
      .map((n) => [`bench/${n}`, read(`bench/${n}`)] as const),
  ];

  it('nothing in src/ or bench/ refers to material outside the repository (DESIGN.md, ../shared, a bare §)', () => {
    const found = texts.flatMap(([f, text]) => outsideReferences(text).map((r) => `${f}: ${r}`));
    expect(found).toEqual([]);
  });

  it('every docs page and section src/ and bench/ cite exists', () => {
    const missing: string[] = [];
    for (const [f, text] of texts) {
      for (const c of citations(text)) {
        if (!existsSync(path.join(ROOT, c.file))) missing.push(`${f}: ${c.file}`);
        else if (c.section !== null && !headings(read(c.file)).includes(c.section)) missing.push(`${f}: ${c.file} "${c.section}"`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('the rules themselves, on made-up text', () => {
  const page = ['# Title', '## The `write` path', '```', '## not a heading', '```', '## Steps', '## Steps', 'See [a](other.md#x), [b](#steps-1), [c](https://example.com), `[d](code.md)`.'].join('\n');

  it('reads headings outside code fences, backticks dropped, and their anchors with repeats numbered', () => {
    expect(headings(page)).toEqual(['Title', 'The write path', 'Steps', 'Steps']);
    expect([...anchors(page)]).toEqual(['title', 'the-write-path', 'steps', 'steps-1']);
  });

  it('finds relative links, not URLs or links in code', () => {
    expect(relativeLinks(page)).toEqual(['other.md#x', '#steps-1']);
  });

  it('finds cited pages and sections, and references to outside material', () => {
    const text = '// (docs/architecture.md "The write path"), docs/cli.md, README "Quick start", the README\'s rule\n// spec §3.1, DESIGN.md, ../shared/spec';
    expect(citations(text)).toEqual([
      { file: 'docs/architecture.md', section: 'The write path' },
      { file: 'docs/cli.md', section: null },
      { file: 'README.md', section: 'Quick start' },
    ]);
    expect(outsideReferences(text)).toEqual(['§3.1', 'DESIGN.md', '../shared']);
  });
});
