/**
 * Our two static files (src/web/assets, copied to dist at build), served by
 * the daemon itself: no CDN. Their URLs carry a hash of their bytes, so a
 * versioned request may be cached for a year; an unversioned one for an hour.
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { sha256Hex } from '../core/hash.js';

const TYPES: Record<string, string> = { 'app.css': 'text/css; charset=utf-8', 'app.js': 'text/javascript; charset=utf-8' };

export class Assets {
  private readonly files = new Map<string, Buffer>();
  readonly version: string;

  constructor(dir = new URL('./assets/', import.meta.url)) {
    for (const name of Object.keys(TYPES)) this.files.set(name, readFileSync(new URL(name, dir)));
    this.version = sha256Hex(Buffer.concat([...this.files.values()])).slice(0, 12);
  }

  /** Serve `/assets/<name>`; false when there is no such asset. */
  serve(name: string, versioned: string | null, etagIn: string | undefined, res: ServerResponse): boolean {
    const bytes = this.files.get(name);
    if (!bytes) return false;
    const etag = `"${this.version}"`;
    const cache = versioned === this.version ? 'public, max-age=31536000, immutable' : 'public, max-age=3600';
    if (etagIn === etag) {
      res.writeHead(304, { etag, 'cache-control': cache });
      res.end();
      return true;
    }
    res.writeHead(200, { 'content-type': TYPES[name]!, 'content-length': bytes.length, etag, 'cache-control': cache, 'x-content-type-options': 'nosniff' });
    res.end(bytes);
    return true;
  }
}
