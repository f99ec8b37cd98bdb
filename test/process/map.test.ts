/**
 * Process maps: every valid process, ours and upstream, renders to a
 * well-formed SVG that shows every step id and every route label, and to
 * Mermaid with every edge.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { loadProcess } from '../../src/process/load.js';
import { mapModel, toMermaid, toSvg } from '../../src/process/map.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const sources = [path.join(ROOT, 'fixtures/valid'), path.join(ROOT, 'fixtures/service'), path.join(ROOT, 'examples/board/processes'), path.join(ROOT, '../shared/conformance/fixtures')].filter(existsSync);
const files = sources.flatMap((dir) => readdirSync(dir).map((d) => path.join(dir, d, 'PROCESS.md')).filter(existsSync));

const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

describe('process maps', () => {
  it('found the processes to draw', () => {
    expect(files.length).toBeGreaterThanOrEqual(8);
  });

  it.each(files.map((f) => [path.relative(ROOT, f), f]))('%s renders to well-formed SVG and Mermaid with every step and route label', (_name, file) => {
    const loaded = loadProcess(readFileSync(file, 'utf8'), FULL_OFFER);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    const p = loaded.process;
    const svg = toSvg(mapModel(p));
    expect(XMLValidator.validate(svg)).toBe(true);
    const text = unescape(svg);
    for (const s of p.steps) expect(text).toContain(s.id);
    const labels = p.steps.flatMap((s) => (Array.isArray(s.next) ? s.next.map((r) => r.when ?? r.to) : []));
    // Long labels are clipped on the drawing; their start is always shown.
    for (const l of labels) expect(text).toContain(l.length > 40 ? l.slice(0, 39) : l);
    for (const s of p.steps.filter((x) => x.onReject)) expect(text).toContain('Rejected');
    for (const s of p.steps.filter((x) => x.kind === 'finish')) expect(text).toContain(`End: ${s.value}`.slice(0, 23));
    const mermaid = toMermaid(mapModel(p));
    expect(mermaid.startsWith('flowchart LR\n')).toBe(true);
    for (const s of p.steps) expect(mermaid).toContain(s.id);
    for (const s of p.steps.filter((x) => x.onReject)) expect(mermaid).toContain(`${s.id} -.->|"Rejected"| ${s.onReject}`);
  });
});
