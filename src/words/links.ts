/**
 * Which text becomes a link, one rule for the web app, the CLI and email:
 * only http(s) and mailto. The target is read by the WHATWG URL parser, the
 * one browsers use, so whatever it makes of mixed case, leading spaces or
 * control characters, or tabs inside the scheme, is what is checked; the
 * parsed form is what is linked to. Anything else (javascript:, data:,
 * vbscript:, relative or unparseable) is shown as text. Pure.
 */
const LINKABLE = new Set(['http:', 'https:', 'mailto:']);

/** The href to render for a link's target, or null when it must show as text. */
export function linkHref(ref: string): string | null {
  if (!URL.canParse(ref)) return null;
  const u = new URL(ref);
  return LINKABLE.has(u.protocol) ? u.href : null;
}

/**
 * A text field meant for a web address: its key ends in Url, Uri, Link or Href (`receiptUrl`), or its
 * description names a link or URL ("Link to the receipt"). PROCESS.md has no type for it; these are the words
 * authors use.
 */
export function isLinkField(key: string, description?: string): boolean {
  return /(url|uri|link|href)$/i.test(key) || /\b(link|url|web address)\b/i.test(description ?? '');
}

/** A value that reads as a web address (http or https written out), so it is shown as a link. */
export function webHref(text: string): string | null {
  if (!/^\s*https?:\/\//i.test(text)) return null;
  const href = linkHref(text.trim());
  return href !== null && !href.startsWith('mailto:') ? href : null;
}
