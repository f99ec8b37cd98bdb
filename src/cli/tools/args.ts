/**
 * Reading the command line into tool arguments: `key=value` pairs, JSON
 * object files, and evidence items (a local file is uploaded first). A
 * malformed flag is a usage error before anything is called.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BoardError } from '../../board/errors.js';
import { parsePairs as parseKeyValues } from '../../core/pairs.js';
import type { Cli } from '../cli.js';
import { callQuietly } from './call.js';
import type { Evidence } from './views.js';

/** Commander's accumulator for a repeatable option. */
export const collect = (v: string, acc: string[]) => [...acc, v];

/** `k=v`: v is read as JSON when it parses (numbers, booleans, lists), else as a string. */
export function parsePairs(pairs: string[], what: string, cli: Cli): Record<string, unknown> {
  const { values, bad } = parseKeyValues(pairs);
  if (bad.length > 0) cli.usage(`${what} expects key=value, got ${bad.map((p) => `"${p}"`).join(', ')}`);
  return values;
}

export function readJson(file: string, cli: Cli): Record<string, unknown> {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) cli.usage(`${file} must hold a JSON object`);
    return v as Record<string, unknown>;
  } catch (e) {
    if (e instanceof Error && e.name === 'CliExit') throw e;
    return cli.usage(`cannot read ${file}: ${(e as Error).message}`);
  }
}

/** Fields from a JSON object file (`--inputs-file`, `--output-file`), each overridden by a `k=v` pair given as `flag`. */
export function fieldsFrom(file: string | undefined, pairs: string[], flag: string, cli: Cli): Record<string, unknown> {
  return { ...(file ? readJson(file, cli) : {}), ...parsePairs(pairs, flag, cli) };
}

/** A local file's bytes, or a usage error that starts with `what`. */
export function readBytes(file: string, what: string, cli: Cli): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    return cli.usage(`${what}: ${(e as Error).message}`);
  }
}

/**
 * `file:<path>` (uploaded first), `file:<upload id>` or `link:<url>` items.
 * A local file is stored through the `upload` tool as the same identity.
 */
export async function evidenceArgs(items: string[], cli: Cli): Promise<Evidence[]> {
  const out: Evidence[] = [];
  for (const e of items) {
    const m = /^(file|link):(.+)$/.exec(e);
    if (!m) cli.usage(`--evidence expects file:<path>, file:<upload id> or link:<url>, got "${e}"`);
    const ref = m[2]!;
    if (m[1] === 'file' && !/^f-[0-9a-f]{32}$/.test(ref)) {
      const bytes = readBytes(ref, `--evidence file:${ref}`, cli);
      const up = await callQuietly(cli, 'upload', { fileName: path.basename(ref), contentType: await mediaTypeOf(ref), contentBase64: bytes.toString('base64'), requestId: randomUUID() });
      if (!up.ok)
        throw new BoardError(
          'invalid',
          `uploading ${ref}: ${up.error.message}`,
          (up.error.issues ?? []).map((i) => ({ path: '', message: i })),
        );
      out.push({ kind: 'file', ref: up.data.id });
    } else out.push({ kind: m[1] === 'file' ? 'file' : 'link', ref });
  }
  return out;
}

/** A file's media type from its name (`receipt.pdf`: application/pdf), else the generic one. */
export async function mediaTypeOf(file: string): Promise<string> {
  // Loaded on use: its table of media types is parsed only by the commands that upload.
  const { lookup } = (await import('mime-types')).default;
  return lookup(file) || 'application/octet-stream';
}
