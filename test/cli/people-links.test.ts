/**
 * Links for people point at the server that is there: with no public address
 * configured, `login-link` and serve's own words follow the address a running
 * `serve --http` of the board really listens on, and fall back to the default
 * once it stops or dies. A configured address always wins. Real processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { boardWith } from '../identities/support.js';
import { BIN } from '../support/cli-run.js';
import { cleanupTmp } from '../support/tmp-board.js';

afterAll(cleanupTmp);

/** `serve --http 127.0.0.1:0` on the board, with what it printed once it said where the web app is. */
async function serve(dir: string): Promise<{ child: ChildProcess; port: number; printed: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--http', '127.0.0.1:0', '--board', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', WORKBOARD_PUBLIC_URL: '' },
  });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += String(d);
      const m = /web app at http:\/\/127\.0\.0\.1:(\d+)\/[^\n]*\n/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.stderr.on('data', (d) => (out += String(d)));
    child.once('close', () => reject(new Error(`serve exited: ${out}`)));
  });
  return { child, port, printed: out };
}

const gone = (child: ChildProcess) => new Promise((r) => child.once('close', r));

describe("people's links", () => {
  it('follow the address serve listens on while it runs, and the default once it stopped or died', async () => {
    const { dir, wb } = await boardWith({ people: ['ana@example.com'] });
    const link = async () => {
      const r = await wb('login-link', 'ana@example.com');
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.trim();
    };
    expect(await link()).toMatch(/^http:\/\/127\.0\.0\.1:7420\/signin\?code=/);

    const s = await serve(dir);
    expect(s.port).not.toBe(7420);
    expect(s.printed).toMatch(new RegExp(`web app at http://127\\.0\\.0\\.1:${s.port}/[;\\n]`));
    expect(s.printed).not.toContain("people's links point to");
    expect(await link()).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${s.port}/signin\\?code=`));
    // An address given on the command line still wins.
    expect((await wb('login-link', 'ana@example.com', '--base-url', 'https://work.example.com')).stdout).toMatch(/^https:\/\/work\.example\.com\/signin\?code=/);
    const stopped = gone(s.child);
    s.child.kill('SIGTERM');
    await stopped;
    expect(await link()).toMatch(/^http:\/\/127\.0\.0\.1:7420\/signin\?code=/);

    // A serve that died without a word leaves its record behind; the record is not believed.
    const k = await serve(dir);
    expect(await link()).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${k.port}/signin\\?code=`));
    const killed = gone(k.child);
    k.child.kill('SIGKILL');
    await killed;
    expect(await link()).toMatch(/^http:\/\/127\.0\.0\.1:7420\/signin\?code=/);
  }, 120_000);

  it("follow WORK.md's notifications.baseUrl over the listening address", async () => {
    const { dir, wb } = await boardWith({ people: ['ana@example.com'] });
    // A hand edit of WORK.md, as a person would make it; the board adopts it.
    const file = path.join(dir, 'WORK.md');
    const text = await fs.readFile(file, 'utf8');
    expect(text).not.toContain('notifications:');
    await fs.writeFile(file, text.replace(/\n---\n/, '\nnotifications:\n  baseUrl: https://work.example.com\n---\n'));
    const s = await serve(dir);
    expect(s.printed).toContain("(people's links point to https://work.example.com)");
    expect((await wb('login-link', 'ana@example.com')).stdout).toMatch(/^https:\/\/work\.example\.com\/signin\?code=/);
    const stopped = gone(s.child);
    s.child.kill('SIGTERM');
    await stopped;
  }, 120_000);
});
