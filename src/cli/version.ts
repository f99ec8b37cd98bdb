/** workboard's own version, from package.json: what `--version` prints and MCP servers announce. */
import { readFileSync } from 'node:fs';

export const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
