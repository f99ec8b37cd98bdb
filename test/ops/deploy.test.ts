/**
 * examples/deploy/ (docs/operations.md, Deployment): the systemd unit passes
 * `systemd-analyze verify` (with its ExecStart pointed at this checkout's
 * workboard, as the installed path is not here), with the hardening the
 * docs promise. Docker cannot build here, so the Dockerfile is read for what
 * it must hold; the proxy snippets keep the ops paths to themselves.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { BIN, ROOT } from '../support/cli-run.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';

afterAll(cleanupTmp);

const DEPLOY = path.join(ROOT, 'examples/deploy');
const read = (f: string) => readFileSync(path.join(DEPLOY, f), 'utf8');
const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const HAS_ANALYZE = analyze.status === 0;

const unit = read('workboard.service');

it('the systemd unit runs serve as a dynamic user, with only the board writable', () => {
  const set = (key: string) =>
    unit
      .split('\n')
      .filter((l) => l.startsWith(`${key}=`))
      .map((l) => l.slice(key.length + 1));
  expect(set('DynamicUser')).toEqual(['yes']);
  expect(set('ProtectSystem')).toEqual(['strict']);
  expect(set('ReadWritePaths')).toEqual(['/var/lib/workboard']);
  expect(set('StateDirectory')).toEqual(['workboard']);
  expect(set('NoNewPrivileges')).toEqual(['yes']);
  expect(set('CapabilityBoundingSet')).toEqual(['']);
  expect(set('ExecStart')[0]).toMatch(/ serve --board \/var\/lib\/workboard\/board --http 127\.0\.0\.1:\d+/);
  // The stop must outlast serve's grace for calls in flight (10 s).
  expect(Number(set('TimeoutStopSec')[0])).toBeGreaterThan(10);
});

(HAS_ANALYZE ? it : it.skip)(`systemd-analyze verify passes the unit${HAS_ANALYZE ? '' : ': SKIPPED because systemd-analyze is not installed'}`, async () => {
  const dir = await tmpDir('wb-unit-');
  const file = path.join(dir, 'workboard.service');
  writeFileSync(file, unit.replace('/usr/local/bin/workboard', `${process.execPath} ${BIN}`));
  const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
  expect({ status: r.status, out: `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.includes('workboard.service')) }).toEqual({ status: 0, out: [] });
});

it('the Dockerfile: a Node 20 slim image, a non-root user, the board as a volume, a health check on /healthz (docker cannot build here)', () => {
  const d = read('Dockerfile');
  const from = [...d.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
  expect(from.every((f) => /^node:20-[a-z]+-slim/.test(f!))).toBe(true);
  expect(d).toMatch(/^USER node$/m);
  expect(d).toMatch(/^VOLUME \/board$/m);
  expect(d).toMatch(/^HEALTHCHECK [^\n]*\\\n\s+CMD [^\n]*127\.0\.0\.1:7421\/healthz/m);
  expect(d).toMatch(/ --ops 127\.0\.0\.1:7421"\]$/m);
  expect(d).toMatch(/serve --board \/board --http 0\.0\.0\.0:7420/);
  // What it copies exists in the repository.
  for (const m of d.matchAll(/^COPY --from=build \/src\/(\S+) /gm)) if (!['dist', 'node_modules'].includes(m[1]!)) execFileSync('test', ['-e', path.join(ROOT, m[1]!)]);
});

it('the proxy snippets answer /metrics, /healthz and /readyz themselves and hand serve the client in X-Forwarded-For', () => {
  const nginx = read('nginx.conf');
  expect(nginx).toContain('location ~ ^/(metrics|healthz|readyz)$ { return 404; }');
  expect(nginx).toContain('proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;');
  expect(nginx).toContain('proxy_pass http://127.0.0.1:7420;');
  const caddy = read('Caddyfile');
  expect(caddy).toMatch(/@ops path \/metrics \/healthz \/readyz\n\s+respond @ops 404/);
  expect(caddy).toContain('reverse_proxy 127.0.0.1:7420');
  // serve believes that header only from the proxy it is told of.
  expect(unit).toContain('Environment=WORKBOARD_TRUST_PROXY=loopback');
});
