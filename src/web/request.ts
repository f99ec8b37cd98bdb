/**
 * Reading what a browser sends: the request target, cookies, and a posted
 * form (url-encoded, or multipart with files, both through busboy), bounded
 * (form-limits.ts): past a bound the rest is left unread and the form is refused.
 * Nothing a client sends here throws: what cannot be read is null or left out.
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { parse as parseCookie } from 'cookie';
import type { FormLimits } from './form-limits.js';
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

/** A form past one of its bounds (413); the message says which. */
export class FormTooLarge extends Error {}

/** A form that cannot be read: a multipart type without a boundary, a malformed part (400). */
export class BadForm extends Error {}

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

/**
 * The posted form, url-encoded or multipart, both through busboy: each bound
 * of `limits` refuses the form as soon as it is passed, and the bytes off the
 * wire are counted as they arrive, so nothing past `limits.body` is buffered.
 */
export function readForm(req: IncomingMessage, limits: FormLimits): Promise<PostedForm> {
  if (Number(req.headers['content-length'] ?? 0) > limits.body) return Promise.reject(new FormTooLarge(`the form is over the limit of ${limits.body} bytes`));
  // Whatever is not multipart is read as url-encoded, as browsers send it.
  const multipart = (req.headers['content-type'] ?? '').startsWith('multipart/form-data');
  const headers = multipart ? req.headers : { ...req.headers, 'content-type': 'application/x-www-form-urlencoded' };
  return new Promise((resolve, reject) => {
    const fields: Posted = new Map();
    const files: UploadedFile[] = [];
    let failed = false;
    let bb: busboy.Busboy;
    const fail = (e: Error) => {
      if (failed) return;
      failed = true;
      req.unpipe(bb);
      req.pause();
      reject(e);
    };
    const over = (what: string) => () => fail(new FormTooLarge(what));
    try {
      // One byte over each text bound, checked below: busboy's multipart cuts a value at its limit, its url-encoded past it, and neither says so alike.
      bb = busboy({
        headers,
        limits: {
          fieldSize: limits.fieldSize + 1,
          fieldNameSize: limits.fieldNameSize + 1,
          fields: limits.fields,
          files: limits.files,
          parts: limits.fields + limits.files,
          fileSize: limits.fileSize,
        },
      });
    } catch (e) {
      return reject(new BadForm(`the form cannot be read: ${e instanceof Error ? e.message : String(e)}`));
    }
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limits.body) over(`the form is over the limit of ${limits.body} bytes`)();
    });
    // Multipart names are bounded only by busboy's part header size (a few KiB): they are checked here too.
    const nameOk = (name: string) => {
      if (Buffer.byteLength(name) <= limits.fieldNameSize) return true;
      over(`a field's name is over the limit of ${limits.fieldNameSize} bytes`)();
      return false;
    };
    bb.on('field', (name, value, info) => {
      if (!nameOk(name)) return;
      if (info.valueTruncated || Buffer.byteLength(value) > limits.fieldSize) over(`a field is over the limit of ${limits.fieldSize} bytes`)();
      else add(fields, name, value);
    });
    bb.on('fieldsLimit', over(`the form has more than ${limits.fields} fields`));
    bb.on('filesLimit', over(`the form has more than ${limits.files} files`));
    bb.on('partsLimit', over(`the form has more than ${limits.fields + limits.files} parts`));
    bb.on('file', (field, stream, info) => {
      if (!nameOk(field)) return void stream.resume();
      const parts: Buffer[] = [];
      stream.on('data', (c: Buffer) => parts.push(c));
      stream.on('limit', over(`a file is over the limit of ${limits.fileSize} bytes`));
      stream.on('close', () => {
        // An empty file input still sends a part with no name and no bytes.
        if (info.filename && !failed) files.push({ field, fileName: info.filename, contentType: info.mimeType || 'application/octet-stream', bytes: Buffer.concat(parts) });
      });
    });
    bb.on('close', () => {
      if (!failed) resolve({ fields, files });
    });
    bb.on('error', (e) => fail(new BadForm(`the form cannot be read: ${e instanceof Error ? e.message : String(e)}`)));
    req.pipe(bb);
  });
}
