/**
 * Live pages hear of commits through the change log (src/web/live.ts over
 * board.changes): a commit landing between a page's render and its stream's
 * start is told at once (the page's `from`), later ones as the log grows, and
 * a log started afresh is read from its start. A real HTTP server, a real
 * board folder, lines appended to `.work/changes` as any coordinator's commit
 * appends them.
 */
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHANGES_FILE } from '../../src/board/layout.js';
import { Live } from '../../src/web/live.js';
import { cleanupTmp, newBoard } from '../support/tmp-board.js';
import { until } from '../support/until.js';

const A = 'r-01jaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'r-01jbbbbbbbbbbbbbbbbbbbbbbb';

const closers: (() => void)[] = [];
afterAll(async () => {
  for (const c of closers) c();
  await cleanupTmp();
});

/** The `changed` events' data received so far. */
const changes = (text: string) => [...text.matchAll(/event: changed\ndata: (.*)\n\n/g)].map((m) => JSON.parse(m[1]!) as { runs: string[]; board: boolean });

describe('live updates from the change log', () => {
  it('tells a page what landed since its render, then each commit, then a fresh log from its start', async () => {
    const { root, board } = await newBoard();
    const file = path.join(root, CHANGES_FILE);
    const live = new Live(board);
    const server = http.createServer((req, res) => {
      void live.stream({ req, res, url: new URL(req.url!, 'http://x'), actor: { email: 'ann@example.com' }, me: { csrf: 'c' } });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => {
      live.close();
      server.close();
    });

    const from = Live.offset(board); // the page is rendered
    appendFileSync(file, `run ${A}\n`); // a commit before the page's stream starts
    let text = '';
    await new Promise<void>((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/events?topic=work&from=${from}`, { agent: false }, (res) => {
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            text += d;
            resolve();
          });
        })
        .on('error', reject);
    });
    expect(await until(() => (changes(text).length >= 1 ? changes(text) : undefined), 10_000, 10)).toEqual([{ runs: [A], board: false }]);

    appendFileSync(file, 'boa'); // torn: told only once whole
    appendFileSync(file, 'rd\n');
    expect(await until(() => (changes(text).length >= 2 ? changes(text) : undefined), 10_000, 10)).toEqual([
      { runs: [A], board: false },
      { runs: [], board: true },
    ]);

    renameSync(file, `${file}.old`);
    writeFileSync(file, `run ${B}\n`);
    const all = await until(() => (changes(text).some((c) => c.runs.includes(B)) ? changes(text) : undefined), 10_000, 10);
    // Never a line twice, and no line of the old log again.
    expect(all.flatMap((c) => c.runs)).toEqual([A, B]);
    expect(all.filter((c) => c.board)).toHaveLength(1);
  });
});
