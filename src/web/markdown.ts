/**
 * Markdown from process files (step text, process bodies) as safe HTML:
 * markdown-it with raw HTML off, so a `<script>` in a body shows as text,
 * and every link opens with `rel="noopener noreferrer"`. markdown-it refuses
 * `javascript:` and similar link targets itself.
 */
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

const defaultLink = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('rel', 'noopener noreferrer');
  return defaultLink(tokens, idx, options, env, self);
};

export function markdownHtml(text: string): string {
  return md.render(text);
}
