/**
 * Markdown from process files (step text, process bodies) as safe HTML:
 * markdown-it with raw HTML off, so a `<script>` in a body shows as text,
 * and every link opens with `rel="noopener noreferrer"`. markdown-it refuses
 * `javascript:` and similar link targets itself. The text always sits inside
 * a page that has its own h1 and h2 sections, so its headings are shifted
 * two levels down (an h1 becomes an h3, nothing goes past h6).
 */
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

const defaultLink = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('rel', 'noopener noreferrer');
  return defaultLink(tokens, idx, options, env, self);
};

/** The page's own title is the h1 and its sections are h2s; process text starts below both. */
const HEADING_SHIFT = 2;
md.core.ruler.push('shift_headings', (state) => {
  for (const t of state.tokens) {
    if (t.type === 'heading_open' || t.type === 'heading_close') t.tag = `h${Math.min(6, Number(t.tag.slice(1)) + HEADING_SHIFT)}`;
  }
});

export function markdownHtml(text: string): string {
  return md.render(text);
}
