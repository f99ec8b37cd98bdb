/** The one rule for which text becomes a link lives in src/words/links.ts, shared with the CLI and email; the pages import it from here until they import it from there. */
export { linkHref } from '../words/links.js';
