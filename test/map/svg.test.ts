/**
 * What the drawn maps say: every process renders to well-formed, accessible
 * SVG (title, desc, text as text, a dark theme) showing every step and every
 * route label; lanes carry group names and member counts; an approval without
 * on_reject ends rejected; a draft shows its problems; a run map marks done
 * steps, the current one, rework and the path taken; Mermaid has every line.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { loadDraft } from '../../src/map/draft.js';
import { mapGraph, processMapLayout, processMapSvg, runMapSvg, runMermaid, toMermaid } from '../../src/map/index.js';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';
import { ours, rel, ROOT, upstream } from './sources.js';

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
const load = (file: string) => {
  const l = loadProcess(readFileSync(file, 'utf8'), FULL_OFFER);
  if (!l.ok) throw new Error(JSON.stringify(l.issues));
  return l.process;
};
/** The words of every `<text>` inside the label group of each line, joined with spaces. */
function labelTexts(svg: string): string[] {
  return [...svg.matchAll(/<g class="label"[^>]*>([\s\S]*?)<\/g>/g)].map((m) => unescape([...m[1]!.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((t) => t[1]).join(' ')));
}
const EXPENSE = path.join(ROOT, 'examples/board/processes/expense-approval/PROCESS.md');

describe('drawn maps', () => {
  it.each([...ours, ...upstream].map((f) => [rel(f), f]))('%s: well-formed, accessible, every step and route label', async (_n, file) => {
    const p = load(file);
    const svg = await processMapSvg({ process: p, roles: {}, version: 1 });
    expect(XMLValidator.validate(svg)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false }).parse(svg);
    expect(doc.svg['@_role']).toBe('img');
    // The heading names the process as its body does (its first heading), not by its id.
    const bodyHeading = /^#\s+(.+?)\s*$/m.exec(p.body)?.[1];
    const title = String(doc.svg.title['#text'] ?? doc.svg.title);
    if (bodyHeading) expect(title.startsWith(`Process map: ${bodyHeading} · version 1`)).toBe(true);
    // Without a heading the name is humanised: never the id with its hyphens or underscores.
    else expect(title).not.toMatch(/[-_]/);
    expect(String(doc.svg.desc['#text'] ?? doc.svg.desc).length).toBeGreaterThan(20);
    expect(svg).toContain('prefers-color-scheme: dark');
    for (const s of p.steps) expect(svg).toContain(`data-step="${s.id}"`);
    const labels = labelTexts(svg);
    for (const s of p.steps) {
      for (const r of Array.isArray(s.next) ? s.next : []) if (r.when) expect(labels.some((l) => l === r.when || (l.endsWith('…') && r.when!.startsWith(l.slice(0, -2))))).toBe(true);
      if (s.kind === 'approve') expect(labels).toContain('Approved');
      if (s.kind === 'approve') expect(labels).toContain('Rejected');
    }
    const mermaid = toMermaid(mapGraph(p));
    expect(mermaid.startsWith('flowchart LR\n')).toBe(true);
    for (const s of p.steps.filter((x) => x.onReject)) expect(mermaid).toContain(`${s.id} -.->|"Rejected"| ${s.onReject}`);
  });

  it('lanes name the group a role maps to with its members, the initiator, and a person path by its field', async () => {
    const p = load(EXPENSE);
    const svg = unescape(await processMapSvg({ process: p, roles: { 'finance-approver': 'finance' } }, { lanes: { groups: { finance: ['a@x', 'b@x'] } } }));
    expect(svg).toContain('>Finance</text>');
    expect(svg).toContain('2 members, as finance approver');
    // Cards and lanes in words: no step ids, field keys or role ids (issue 42's "Agent step · review_claim").
    expect(svg).not.toMatch(/Agent step · |Approval · |Task · |output: |\(role |evidence: /);
    expect(svg).toContain('>Agent step</text>');
    expect(svg).toMatch(/Records within policy and notes|Records [a-z][^<]* and [a-z]/);
    expect(svg).toContain('the person the run names as claimant');
    expect(svg).not.toContain('>finance-approver</text>');
    const withInitiator = { ...p, steps: p.steps.map((s) => (s.id === 'ask_claimant' ? { ...s, person: 'initiator' } : s)) };
    expect(unescape(await processMapSvg({ process: withInitiator, roles: {} }))).toContain('>Initiator</text>');
  });

  it('an approval without on_reject has a dashed Rejected line to a rejected end; waits say what they wait for', async () => {
    const text =
      '---\nname: pay\ndescription: Pay.\nsteps:\n  - id: hold\n    wait_for: invoice-paid\n    timeout: 3d\n    on_timeout: chase\n  - id: ok\n    person: boss\n    approve: Fine?\n    next: done\n  - id: chase\n    agent: Chase it.\n    next: done\n  - id: done\n    finish: paid\n---\n';
    const d = loadDraft(text, FULL_OFFER);
    expect(d.problems).toEqual([]);
    const svg = unescape(await processMapSvg({ process: d.process, roles: { boss: 'boss' } }));
    expect(svg).toContain('End: rejected');
    expect(svg).toMatch(/class="edge edge-rejected"/);
    expect(svg).toContain('Wait for invoice-paid');
    expect(svg).toContain('at most 3d');
    expect(labelTexts(svg)).toContain('No invoice-paid after 3d');
    expect(svg).toContain('>Waiting</text>');
  });

  it('long instructions wrap between words and keep the whole text in a tooltip', async () => {
    const long =
      'Read every receipt and compare each line with the travel policy, then write down what is missing and why it matters for the payout. Ask the claimant for anything unclear, and note the answer beside the line it explains.';
    const d = loadDraft(`---\nname: long\ndescription: Long.\nsteps:\n  - id: read\n    agent: ${long}\n  - id: done\n    finish: done\n---\n`, FULL_OFFER);
    const svg = unescape(await processMapSvg({ process: d.process }));
    expect(svg).toContain(long);
    const card = /<g class="node node-agent" data-id="read"[\s\S]*?<\/g>/.exec(svg)![0];
    const shown = [...card.matchAll(/<text class="muted"[^>]*font-size="11">([^<]*)<\/text>/g)].map((m) => m[1]!).join(' ');
    expect(shown.endsWith('…')).toBe(true);
    for (const w of shown.split(' ').filter((x) => x !== '…' && x !== '')) expect(long.split(' ')).toContain(w);
  });

  it('a draft shows the problems validate finds, on the step and for the missing target', async () => {
    const d = loadDraft('---\nname: typo\ndescription: Typo.\nsteps:\n  - id: a\n    agent: Do it.\n    next: aprove\n  - id: b\n    finish: done\n---\n', FULL_OFFER);
    expect(d.issues.length).toBeGreaterThan(0);
    const svg = unescape(await processMapSvg({ process: d.process }, { problems: d.problems }));
    expect(svg).toContain('draft');
    expect(svg).toContain('No step "aprove" in this file.');
    expect(svg).toMatch(/⚠ next: no step "aprove"/);
  });

  it('a run map marks done steps, the current step, rework and the path taken', async () => {
    const p = load(EXPENSE);
    const view = {
      run: { state: 'waiting', outcome: null },
      steps: [
        { id: 'review_claim', state: 'done' },
        { id: 'ask_claimant', state: null },
        { id: 'review_claim_again', state: null },
        { id: 'approve', state: 'waiting' },
        { id: 'paid', state: null },
      ],
      data: {
        steps: {
          review_claim: { next: 'approve', history: [{ next: 'approve' }] },
          approve: { history: [{ decision: 'rejected' }] },
        },
      },
    };
    const svg = unescape(await runMapSvg({ process: p, roles: { 'finance-approver': 'finance' } }, view));
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg).toMatch(/<g class="node node-agent state-done" data-id="review_claim"/);
    expect(svg).toMatch(/<g class="node node-approve state-now" data-id="approve"/);
    expect(svg).toContain('now: a person decides');
    expect(svg).toContain('reworked 1×');
    const taken = [...svg.matchAll(/<path class="edge[^"]*edge-taken[^"]*"[^>]*data-edge="([^"]+)"/g)].map((m) => m[1]);
    const g = mapGraph(p);
    const name = (id: string) => g.edges.find((e) => e.id === id)!;
    const went = taken.map((id) => `${name(id!).from}>${name(id!).to}`).sort();
    expect(went).toEqual(['#start>review_claim', 'approve>review_claim', 'review_claim#decision>approve', 'review_claim>review_claim#decision'].sort());
  });
});

describe('maps for every renderer', () => {
  it('colours are plain attributes; the style holds only the dark theme, and it names every paint used', async () => {
    const svg = await processMapSvg({ process: load(EXPENSE), roles: { 'finance-approver': 'finance' } });
    expect(svg).not.toContain('var(');
    const style = /<style>([\s\S]*?)<\/style>/.exec(svg)![1]!;
    expect(style.trim().startsWith('@media (prefers-color-scheme: dark)')).toBe(true);
    // Every painted element carries its light colour itself, and its class has a dark one.
    const painted = [...svg.matchAll(/<(rect|circle|path|polygon|text|line)\s+class="([^"]+)"([^>]*)>/g)];
    expect(painted.length).toBeGreaterThan(50);
    for (const [, tag, cls, rest] of painted) {
      expect(rest, `${tag}.${cls}`).toMatch(/\s(fill|stroke)="#[0-9a-f]{6}"/);
      for (const c of cls!.split(' ')) expect(style, c).toContain(`.${c} {`);
    }
    expect(svg).toMatch(/<svg [^>]*font-family="'Liberation Sans', Arimo, Arial, Helvetica, sans-serif"/);
  });

  it('lane names keep acronyms and split camelCase', async () => {
    const text =
      '---\nname: lanes\ndescription: Lanes.\ninputs:\n  releaseManager: person\nsteps:\n  - id: test\n    person: qa-lead\n    task: Test it.\n  - id: pay\n    person: cfo\n    approve: Pay it.\n  - id: ship\n    person: inputs.releaseManager\n    task: Ship it.\n  - id: done\n    finish: done\n---\n';
    const d = loadDraft(text, FULL_OFFER);
    expect(d.issues).toEqual([]);
    expect(mapGraph(d.process).lanes.map((l) => l.label)).toEqual(['QA lead', 'CFO', 'Release manager']);
    // Published, a lane shows the group's name as the board writes it.
    expect(mapGraph(d.process, { roles: { 'qa-lead': 'QATeam', cfo: 'financeCFO' } }).lanes.map((l) => l.label)).toEqual(['QA team', 'Finance CFO', 'Release manager']);
  });

  it('a wait shows its whole text, and a card is as wide as its longest title word', async () => {
    const text =
      '---\nname: w\ndescription: W.\nsteps:\n  - id: hold\n    wait_for: support-acknowledged-by-the-regional-desk\n    timeout: 3d\n    on_timeout: done\n    next: done\n  - id: done\n    finish: done\n---\n';
    const d = loadDraft(text, FULL_OFFER);
    const m = await processMapLayout({ process: d.process });
    const wait = m.nodes.find((n) => n.node.id === 'hold')!;
    expect(wait.lines.text.join(' ')).toBe('Until the event support-acknowledged-by-the-regional-desk arrives, at most 3d.');
    // The long word is broken after its hyphens, on lines of its own.
    expect(wait.lines.title.join(' ').replace(/- /g, '-')).toBe('Wait for support-acknowledged-by-the-regional-desk');
    expect(wait.lines.title.length).toBeGreaterThan(1);
    expect(wait.lines.cut).toBe(false);
  });

  it("a run's Mermaid draws the lines it took bold, as the SVG does", async () => {
    const p = load(EXPENSE);
    const view = {
      run: { state: 'waiting', outcome: null },
      steps: p.steps.map((s) => ({ id: s.id, state: s.id === 'review_claim' ? 'done' : s.id === 'approve' ? 'waiting' : null })),
      data: { steps: { review_claim: { next: 'approve' } } },
    };
    const mermaid = runMermaid({ process: p, roles: {} }, view);
    const links = mermaid.split('\n').filter((l) => / -\.?->/.test(l));
    const style = /linkStyle ([0-9,]+) stroke:#0969da,stroke-width:3px/.exec(mermaid);
    expect(style).not.toBeNull();
    const bold = style![1]!.split(',').map((i) => links[Number(i)]!.trim());
    expect(bold).toEqual(['_start --> review_claim', 'review_claim --> review_claim_decision', 'review_claim_decision -->|"The claim is within policy"| approve']);
    expect(mermaid).toContain('class approve waiting');
  });
});
