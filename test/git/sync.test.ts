/**
 * A board shared through git with `workboard sync` (issue 26): two clones of
 * one board repository behind a bare remote, each with its own agents, real
 * git and the real CLI. The cases a team meets first: two agents claim and
 * submit the same step on two clones; the remote is unreachable; a file
 * beside the board is deleted on the remote; a branch that adds a person is
 * merged while `serve` runs.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/cli-run.js';
import { boardFiles, git, submitAs, twoClones, wb } from '../support/git-clones.js';
import { until } from '../support/until.js';

describe('workboard sync: a board shared through git', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it('two clones claim and submit the same step: after syncing, one whole run on both, the other submission superseded, both agents told', async () => {
    const { a, b, run } = await twoClones();
    await submitAs(a, run, 'writer-a', 'From A.');
    // B claims too, and keeps a claim open on a second round: the lease of a superseded claim must end.
    const bToken = await submitAs(b, run, 'writer-b', 'From B.');
    for (const dir of [a, b, a]) {
      const r = await wb(dir, 'sync');
      expect(r.code, r.stderr).toBe(0);
    }
    // One history on both clones, byte for byte, no conflict marker anywhere.
    expect(await boardFiles(a)).toEqual(await boardFiles(b));
    const files = await boardFiles(a);
    for (const [rel, text] of Object.entries(files)) expect(text.includes('<<<<<<<'), rel).toBe(false);

    // The run is whole from one side: its step file, RUN.md and chain all say the same writer.
    const draft = files[`runs/${run}/draft.md`]!;
    const winner = draft.includes('From A.') ? 'writer-a' : 'writer-b';
    const loser = winner === 'writer-a' ? 'writer-b' : 'writer-a';
    expect(draft).toContain(winner === 'writer-a' ? 'From A.' : 'From B.');
    expect(draft).not.toContain(winner === 'writer-a' ? 'From B.' : 'From A.');
    const chain = files[`runs/${run}/audit.jsonl`]!.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { actor: string; action: string });
    expect(chain.filter((e) => e.action === 'step.completed').map((e) => e.actor)).toEqual([winner]);
    expect(chain.some((e) => e.actor === loser && e.action !== 'run.started')).toBe(false);

    // The other side is kept beside it, verifiable, and said in words.
    const aside = files[`runs/${run}/superseded.jsonl`]!.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { lines: { actor: string; action: string }[] });
    expect(aside).toHaveLength(1);
    expect(aside[0]!.lines.filter((l) => l.actor === loser).map((l) => l.action)).toEqual(['step.claimed', 'step.completed']);
    for (const dir of [a, b]) {
      const log = await wb(dir, 'log', run);
      expect(log.stdout).toMatch(new RegExp(`superseded on merge, branch 1[^\\n]*\\n(\\s+#\\d+ [^\\n]*\\n)*\\s+#\\d+ [^\\n]*${loser} submitted “Write a text on the topic`));
      const verify = await wb(dir, 'audit', 'verify', '--git');
      expect(verify.code, verify.stdout).toBe(0);
      expect(verify.stdout).toMatch(/superseded on merge/);
      const doctor = await wb(dir, 'doctor');
      expect(doctor.code, doctor.stdout).toBe(0);
      expect(doctor.stdout).toContain(`superseded on merge: ${loser} claimed draft, ${loser} completed draft`);
    }

    // The losing clone told its people and operators, naming both agents; the other clone told no one of it.
    const loserDir = loser === 'writer-a' ? a : b;
    const winnerDir = loser === 'writer-a' ? b : a;
    const outbox = async (dir: string) => {
      const names = await fs.readdir(path.join(dir, '.work/notifications')).catch(() => [] as string[]);
      const all = await Promise.all(names.map(async (n) => JSON.parse(await fs.readFile(path.join(dir, '.work/notifications', n), 'utf8')) as { kind: string; text: string; recipients: string[] }));
      return all.filter((n) => n.kind === 'superseded');
    };
    const told = await outbox(loserDir);
    expect(told).toHaveLength(1);
    expect(told[0]!.recipients).toEqual(['ana@example.com']);
    expect(told[0]!.text).toContain(`${loser} completed draft`);
    expect(told[0]!.text).toContain(`Kept instead:`);
    expect(told[0]!.text).toContain(`${winner} completed draft`);
    expect(await outbox(winnerDir)).toHaveLength(0);

    // The superseded claim is over: its token no longer renews on the clone that made it.
    if (loser === 'writer-b') {
      const renew = await wb(b, '--as', 'writer-b', '--json', 'renew', bToken);
      expect(JSON.parse(renew.stdout).ok).toBe(false);
    }

    // An operator may take the other side while the run has not moved; then it is that side, whole, on every clone.
    const took = await wb(a, '--as', 'ana@example.com', 'resolve', run, '--take', '1');
    expect(took.code, took.stderr).toBe(0);
    const after = await fs.readFile(path.join(a, `runs/${run}/draft.md`), 'utf8');
    expect(after).toContain(loser === 'writer-a' ? 'From A.' : 'From B.');
    expect((await wb(a, 'audit', 'verify')).code).toBe(0);
    for (const dir of [a, b]) expect((await wb(dir, 'sync')).code).toBe(0);
    expect(await boardFiles(a)).toEqual(await boardFiles(b));
    expect((await wb(b, 'audit', 'verify', '--git')).code).toBe(0);
    // The choice is audited on the run, so the run has moved since: no second switch.
    const again = await wb(a, '--as', 'ana@example.com', 'resolve', run, '--take', '1', '--reason', 'changed my mind');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('the run has moved since the merge');
  }, 600_000);

  it('an unreachable remote: one clear line, a non-zero exit, nothing changed', async () => {
    const { root, remote, a, run } = await twoClones();
    await submitAs(a, run, 'writer-a', 'From A.');
    const head = git(a, 'rev-parse', 'HEAD');
    const before = await boardFiles(a);
    const status = git(a, 'status', '--porcelain');
    await fs.rename(remote, path.join(root, 'gone.git'));
    const r = await wb(a, 'sync');
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/cannot reach origin: .*nothing was changed/);
    expect(git(a, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(a, 'status', '--porcelain')).toBe(status);
    expect(await boardFiles(a)).toEqual(before);
    await fs.rename(path.join(root, 'gone.git'), remote);
    expect((await wb(a, 'sync')).code).toBe(0);
  }, 600_000);

  it('a file beside the board that the remote deleted is deleted here too, that file alone (its name read literally, not as a pattern)', async () => {
    const { a, b } = await twoClones();
    await fs.mkdir(path.join(b, 'notes'));
    await fs.writeFile(path.join(b, 'notes/[draft].md'), 'A draft.\n');
    await fs.writeFile(path.join(b, 'notes/plan.md'), 'The plan.\n');
    git(b, 'add', 'notes');
    git(b, 'commit', '-qm', 'Notes');
    git(b, 'push', '-q', 'origin', 'main');
    expect((await wb(a, 'sync')).code).toBe(0);
    expect(await fs.readFile(path.join(a, 'notes/[draft].md'), 'utf8')).toBe('A draft.\n');
    git(b, 'rm', '-q', 'notes/[draft].md');
    git(b, 'commit', '-qm', 'Drop the draft');
    git(b, 'push', '-q', 'origin', 'main');
    // A file of this clone's that git ignores (so sync does not commit it), and a match of "[draft].md" read as a pattern.
    await fs.appendFile(path.resolve(a, git(a, 'rev-parse', '--git-path', 'info/exclude')), 'notes/d.md\n');
    await fs.writeFile(path.join(a, 'notes/d.md'), 'Mine.\n');
    const r = await wb(a, 'sync');
    expect(r.code, r.stderr).toBe(0);
    expect(await fs.readdir(path.join(a, 'notes'))).toEqual(['d.md', 'plan.md']);
    expect(git(a, 'ls-files', 'notes')).toBe('notes/plan.md');
    expect(await fs.readFile(path.join(a, 'notes/d.md'), 'utf8')).toBe('Mine.\n');
  }, 600_000);

  it('a branch that adds a person, merged with git while serve runs: adopted with an audit line, verify and doctor clean', async () => {
    const { a, b } = await twoClones();
    git(b, 'checkout', '-q', '-b', 'add-bo');
    expect((await wb(b, 'person', 'add', 'bo@example.com', '--name', 'Bo Li')).code).toBe(0);
    git(b, 'add', '-A');
    git(b, 'commit', '-qm', 'Add Bo'); // with clone B's signing key record, new in audit/keys/
    git(b, 'push', '-q', 'origin', 'add-bo');
    // Meanwhile clone A changes WORK.md too, so the merge has to merge it as data.
    expect((await wb(a, 'person', 'add', 'cy@example.com', '--name', 'Cy Ray')).code).toBe(0);
    git(a, 'add', '-A');
    git(a, 'commit', '-qm', 'Add Cy');
    const serve = spawn(process.execPath, [BIN, 'serve'], { cwd: a, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    serve.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await until(() => out.includes('coordinating'), 30_000);
      git(a, 'fetch', '-q', 'origin');
      git(a, 'merge', '-q', '--no-edit', 'origin/add-bo');
      await until(() => /adopted WORK\.md/.test(out), 30_000);
    } finally {
      serve.kill('SIGTERM');
      await new Promise((r) => serve.once('close', r));
    }
    const work = await fs.readFile(path.join(a, 'WORK.md'), 'utf8');
    expect(work).toContain('bo@example.com');
    expect(work).toContain('cy@example.com');
    expect(work).not.toContain('<<<<<<<');
    const board = (await fs.readFile(path.join(a, 'audit/board.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string });
    expect(board[board.length - 1]!.action).toBe('work.external-edit');
    const verify = await wb(a, 'audit', 'verify');
    expect(verify.code, verify.stdout).toBe(0);
    expect(verify.stdout).not.toMatch(/BROKEN|arrived/);
    expect((await wb(a, 'sync')).code).toBe(0);
    const history = await wb(a, 'audit', 'verify', '--git');
    expect(history.code, history.stdout).toBe(0);
    const doctor = await wb(a, 'doctor');
    expect(doctor.code, doctor.stdout).toBe(0);
    expect((await wb(a, 'inbox', '--as', 'bo@example.com')).code).toBe(0);
  }, 600_000);
});
