/**
 * What the docs tests check, as pure functions over text: the headings of a
 * markdown page and their anchors, its relative links, and the citations of
 * docs sections that code comments make (CONTRIBUTING.md "Send a change").
 */

/** A markdown page's headings (outside code fences), with backticks dropped: the names citations use. */
export function headings(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) out.push(m[1]!.replace(/`/g, ''));
  }
  return out;
}

/** The anchors GitHub gives those headings: lower case, punctuation dropped, spaces as hyphens, a repeat numbered. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(markdown)) {
    const base = h
      .toLowerCase()
      .trim()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every link target of a page that is not a URL with a scheme (outside code fences and inline code): `path#anchor`, `#anchor`. */
export function relativeLinks(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1]!)) out.push(m[1]!);
    }
  }
  return out;
}

export interface Citation {
  file: string;
  section: string | null;
}

/**
 * The docs a text cites: `docs/architecture.md "The write path"` (a page and
 * one of its sections), `docs/cli.md` (a page), `README "Quick start"`.
 */
export function citations(text: string): Citation[] {
  const out: Citation[] = [];
  for (const m of text.matchAll(/\b(docs\/[a-z0-9-]+\.md|(?:README|CONTRIBUTING|CHANGELOG)(?:\.md)?)(?:'s)?(?:,? "([^"\n]+)")?/g)) {
    if (!m[1]!.endsWith('.md') && m[2] === undefined) continue; // the word README alone, not a citation
    const file = m[1]!.endsWith('.md') ? m[1]! : `${m[1]}.md`;
    out.push({ file, section: m[2] === undefined ? null : m[2].replace(/`/g, '') });
  }
  return out;
}

/** References to material outside the repository: the design notes and specs of ../shared, and bare section numbers (§3.1). */
export function outsideReferences(text: string): string[] {
  return [...text.matchAll(/DESIGN\.md|\.\.\/shared|§\s*\d[\d.]*/g)].map((m) => m[0]);
}
