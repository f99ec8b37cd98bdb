// node bench/flush.mjs [folder] [count]: what one commit-log flush costs on the file system of
// `folder` (the OS temp folder by default), written the two ways a log can be: appended to (the
// file grows with each record, so each flush also writes its inode: on a journaled ext4, a journal
// commit) and in place over zeros written ahead (what board/commit-log.ts does: the flush writes the
// data alone). One process, then two at once, `count` records of 2.5 KB each (2,000 by default).
// Prints a markdown table. Not a test.
import { fork } from 'node:child_process';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RECORD = Buffer.alloc(2500, 0x61);

/** Write and flush `count` records one by one; microseconds per record, wall and CPU. */
function measure(dir, way, count) {
  const file = path.join(dir, `flush-${process.pid}.log`);
  const fd = openSync(file, 'w+');
  try {
    if (way === 'in place') {
      const zeros = Buffer.alloc(count * RECORD.length);
      writeSync(fd, zeros, 0, zeros.length, 0);
      fdatasyncSync(fd);
    }
    const cpu = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < count; i++) {
      writeSync(fd, RECORD, 0, RECORD.length, i * RECORD.length);
      fdatasyncSync(fd);
    }
    const c = process.cpuUsage(cpu);
    return { wallUs: ((performance.now() - t) / count) * 1000, cpuUs: (c.user + c.system) / count };
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
}

if (process.argv[2] === '--child') {
  const [, , , dir, way, count] = process.argv;
  process.send(measure(dir, way, Number(count)), () => process.exit(0));
} else {
  const base = process.argv[2] ?? tmpdir();
  const count = Number(process.argv[3] ?? 2000);
  const dir = mkdtempSync(path.join(base, 'wb-flush-'));
  const self = fileURLToPath(import.meta.url);
  const inChild = (way) =>
    new Promise((resolve, reject) => {
      const child = fork(self, ['--child', dir, way, String(count)]);
      child.once('message', resolve);
      child.once('error', reject);
    });
  const f = (x) => x.toFixed(0);
  console.log(`${count} records of ${RECORD.length} bytes in ${dir}, each written and flushed (fdatasync)\n`);
  console.log('| written | µs per record, 1 process (CPU) | µs per record, 2 processes at once (CPU) |');
  console.log('|---|---|---|');
  try {
    for (const way of ['appended', 'in place']) {
      const one = await inChild(way);
      const two = await Promise.all([inChild(way), inChild(way)]);
      const wall = (two[0].wallUs + two[1].wallUs) / 2;
      const cpu = (two[0].cpuUs + two[1].cpuUs) / 2;
      console.log(`| ${way} | ${f(one.wallUs)} (${f(one.cpuUs)}) | ${f(wall)} (${f(cpu)}) |`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
