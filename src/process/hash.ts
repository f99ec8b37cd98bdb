/**
 * The content hash of a process version (docs/processes.md "The content hash"): SHA-256, in lower
 * case hex, over the RFC 8785 canonical JSON of the parsed frontmatter, one
 * newline character, then the body exactly as written.
 */
import { canonicalJson, sha256Hex } from '../core/hash.js';

export function processHash(frontmatter: unknown, body: string): string {
  return sha256Hex(`${canonicalJson(frontmatter)}\n${body}`);
}
