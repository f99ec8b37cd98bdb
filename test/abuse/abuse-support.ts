/**
 * Helpers shared by the abuse suites (not a test file): byte snapshots of a
 * board and of the folder around it, hostile ids, deep values, and token
 * surgery. Expected codes come from the spec's error table (core-2 §4.3).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** The seven error codes of the tool contracts (spec §4.3). */
export const CONTRACT_CODES = ['invalid', 'not_accepted', 'stale', 'conflict', 'forbidden', 'not_found', 'retry'] as const;
export type Code = (typeof CONTRACT_CODES)[number];

/**
 * Every file and folder under `root`, path → sha256 of its bytes (links as
 * their target), skipping any top-level entry named in `skip`. Two equal
 * results mean not one byte, file or folder was added, removed or changed.
 */
export async function tree(root: string, skip: readonly string[] = ['.work']): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string) => {
    for (const e of (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const abs = path.join(dir, e.name);
      const rel = path.relative(root, abs).split(path.sep).join('/');
      if (skip.includes(rel)) continue;
      if (e.isSymbolicLink()) out[rel] = `link -> ${await fs.readlink(abs)}`;
      else if (e.isDirectory()) {
        out[`${rel}/`] = 'dir';
        await walk(abs);
      } else
        out[rel] = createHash('sha256')
          .update(await fs.readFile(abs))
          .digest('hex');
    }
  };
  await walk(root);
  return out;
}

/** One digest of `tree`: cheap to compare after every call. */
export async function treeDigest(root: string, skip: readonly string[] = ['.work']): Promise<string> {
  return createHash('sha256')
    .update(JSON.stringify(await tree(root, skip)))
    .digest('hex');
}

/** A value nested `depth` levels deep: arrays, objects, or both alternating. */
export function deep(depth: number, shape: 'array' | 'object' | 'mixed' = 'mixed'): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) {
    const arr = shape === 'array' || (shape === 'mixed' && i % 2 === 0);
    v = arr ? [v] : { a: v };
  }
  return v;
}

/** A string of about `bytes` UTF-8 bytes. */
export function huge(bytes = 1024 * 1024, ch = 'x'): string {
  return ch.repeat(Math.ceil(bytes / Buffer.byteLength(ch)));
}

/** An object with an own enumerable property of any name (`__proto__` included), as JSON.parse would build it. */
export function withKey(base: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const out = { ...base };
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** Ids that try to leave the board or confuse a path: traversal, absolute, NUL, percent-encoded, odd separators. */
export function traversalIds(secretAbs: string, boardRoot: string): string[] {
  const rel = path.relative(boardRoot, secretAbs).split(path.sep).join('/');
  return [
    '../',
    '..',
    '.',
    '../../../../../../etc/passwd',
    '/etc/passwd',
    secretAbs,
    rel,
    `runs/../${rel}`,
    'a\u0000b',
    `..\u0000/${rel}`,
    '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    `%2e%2e/${rel}`,
    '..%2f..%2f..%2fetc%2fpasswd',
    '..\\..\\..\\windows\\win.ini',
    `file://${secretAbs}`,
    'r-../../../../../../../../tmp',
    'r-01m8mp018ecpmzed18ecv47hg8/../../x',
    '~/.ssh/id_rsa',
    'f-00000000000000000000000000000000/../../../x',
  ];
}

// ---- tokens -----------------------------------------------------------------------

/** A claim token's two parts: the signed body and the signature (both base64url). */
export function tokenParts(token: string): { body: string; sig: string } {
  const dot = token.indexOf('.');
  if (dot < 0) throw new Error(`not a token: ${token}`);
  return { body: token.slice(0, dot), sig: token.slice(dot + 1) };
}

/** The token's claims as JSON (the body is plain base64url JSON). */
export function tokenClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(tokenParts(token).body, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** The token with its body replaced by these claims (re-encoded), the old signature kept. */
export function withClaims(token: string, claims: Record<string, unknown>): string {
  return `${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${tokenParts(token).sig}`;
}

/** Flip one bit of the character at index `i` (the string stays one UTF-16 unit per char). */
export function flipBit(s: string, i: number, bit: number): string {
  return s.slice(0, i) + String.fromCharCode(s.charCodeAt(i) ^ (1 << bit)) + s.slice(i + 1);
}
