/**
 * The content hash of a process version (spec §6 rule 5): SHA-256, in lower
 * case hex, over the RFC 8785 canonical JSON of the parsed frontmatter, one
 * newline character, then the body exactly as written.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export function canonicalJson(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new Error('value cannot be canonicalized');
  return out;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function processHash(frontmatter: unknown, body: string): string {
  return sha256Hex(`${canonicalJson(frontmatter)}\n${body}`);
}
