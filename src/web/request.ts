/**
 * Reading what a browser sends: the request target, cookies, and a posted
 * form (url-encoded, or multipart with files through busboy), bounded in
 * size: past the limit the rest is left unread and the form is refused.
 * Nothing a client sends here throws: what cannot be read is null or left out.
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { parse as parseCookie } from 'cookie';
import type { Posted } from './form-values.js';

export interface UploadedFile {
  field: string;
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

export interface PostedForm {
  fields: Posted;
  files: UploadedFile[];
}

export class FormTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the form is over the limit of ${limit} bytes`);
  }
}

/** The request's path and query, or null when the target is not one (`//` is not). */
export function requestUrl(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? '/', 'http://x');
  } catch {
    return null;
  }
}

/** Cookies by name, the first of each; a value that is not well escaped is kept as sent (any app on the host can set one). */
export function cookies(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(parseCookie(req.headers.cookie ?? ''))) if (k !== '' && v !== undefined) out.set(k, v);
  return out;
}

function add(p: Posted, k: string, v: string) {
  const list = p.get(k);
  if (list) list.push(v);
  else p.set(k, [v]);
}

function urlEncoded(req: IncomingMessage, limit: number): Promise<PostedForm> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.pause();
        reject(new FormTooLarge(limit));
      } else chunks.push(c);
    });
    req.once('end', () => {
      const fields: Posted = new Map();
      for (const [k, v] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) add(fields, k, v);
      resolve({ fields, files: [] });
    });
    req.once('error', reject);
  });
}

function multipart(req: IncomingMessage, limit: number, fileLimit: number): Promise<PostedForm> {
  return new Promise((resolve, reject) => {
    const fields: Posted = new Map();
    const files: UploadedFile[] = [];
    let total = 0;
    let failed = false;
    const fail = (e: Error) => {
      if (failed) return;
      failed = true;
      req.unpipe(bb);
      req.pause();
      reject(e);
    };
    const bb = busboy({ headers: req.headers, limits: { fileSize: fileLimit, fields: 1000, fieldSize: 1024 * 1024, files: 20 } });
    bb.on('field', (name, value) => add(fields, name, value));
    bb.on('file', (field, stream, info) => {
      const parts: Buffer[] = [];
      stream.on('data', (c: Buffer) => {
        total += c.length;
        if (total > limit) fail(new FormTooLarge(limit));
        else parts.push(c);
      });
      stream.on('limit', () => fail(new FormTooLarge(fileLimit)));
      stream.on('close', () => {
        // An empty file input still sends a part with no name and no bytes.
        if (info.filename && !failed) files.push({ field, fileName: info.filename, contentType: info.mimeType || 'application/octet-stream', bytes: Buffer.concat(parts) });
      });
    });
    bb.on('close', () => {
      if (!failed) resolve({ fields, files });
    });
    bb.on('error', (e) => fail(e instanceof Error ? e : new Error(String(e))));
    req.pipe(bb);
  });
}

/** The posted form; `limit` bounds the whole body, `fileLimit` each file. */
export function readForm(req: IncomingMessage, limit: number, fileLimit: number): Promise<PostedForm> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.reject(new FormTooLarge(limit));
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) return multipart(req, limit, fileLimit);
  return urlEncoded(req, limit);
}
