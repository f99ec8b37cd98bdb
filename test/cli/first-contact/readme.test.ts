/**
 * The README's quick start and tour, run as written: the fenced blocks that
 * follow a `<!-- readme-test: … -->` comment are read from README.md itself,
 * so the README cannot drift from what works. The install block (npm pack,
 * then a global install of the tarball) runs in a copy of the source tree as
 * `npm install` left it (dist/ built), with its global prefix in a temporary
 * folder; the tour runs in an empty folder with that installed `workboard`
 * first on PATH; then an MCP client (the SDK's) shakes hands with the
 * installed `workboard mcp`. Skips, named, when the npm registry cannot be
 * reached (the install fetches dependencies).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../../support/cli-run.js';
import { cleanupTmp, tmpDir } from '../../support/tmp-board.js';

afterAll(cleanupTmp);

/** The fenced block right after `<!-- readme-test: name -->`. */
function block(readme: string, name: string): string {
  const m = new RegExp(`<!-- readme-test: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(readme);
  if (!m) throw new Error(`README.md has no block marked readme-test: ${name}`);
  return m[1]!;
}

const registryUp = spawnSync('npm', ['ping'], { encoding: 'utf8', timeout: 20_000 }).status === 0;
/**
 * The machine's global npmrc (its CA file, proxy, registry). npm looks for it under the prefix, so with the
 * prefix redirected it would be lost: on a machine whose TLS goes through its own CA every fetch then fails.
 */
const globalConfig = spawnSync('npm', ['config', 'get', 'globalconfig'], { encoding: 'utf8', timeout: 20_000 }).stdout.trim();

/** The environment a newcomer's shell has, with npm's global prefix redirected to `prefix`. */
function shellEnv(prefix: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKBOARD_') && !k.startsWith('npm_')) env[k] = v;
  return {
    ...env,
    NO_COLOR: '1',
    npm_config_prefix: prefix,
    ...(globalConfig === '' ? {} : { npm_config_globalconfig: globalConfig }),
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_update_notifier: 'false',
    // A dependency npm already holds in its cache in a version the range allows (the checkout's own `npm install`
    // put them there) is installed from the cache without asking the registry whether a newer one exists; only
    // what is missing is fetched. The install and the tour are the same, without a hundred round trips to wait on.
    npm_config_prefer_offline: 'true',
    // npm waits five minutes on a fetch that stalls (its default fetch-timeout), as long as the whole install may take
    // here: one stalled download of the hundreds failed the test. A stall is cut after 30 s and fetched again.
    npm_config_fetch_timeout: '30000',
    npm_config_fetch_retries: '4',
    PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
  };
}

function sh(script: string, cwd: string, env: Record<string, string>) {
  return spawnSync('bash', ['-e', '-c', script], { cwd, env, encoding: 'utf8', timeout: 300_000, maxBuffer: 32 * 1024 * 1024 });
}

describe.skipIf(!registryUp)('README, as written (skipped when npm ping fails: the install needs the registry)', () => {
  it('quick start install from the packed tarball, the tour, and an MCP handshake with the installed workboard', async () => {
    await ensureBuilt();
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const base = await tmpDir('wb-readme-');
    const prefix = path.join(base, 'prefix');
    // A copy of the source tree as a clone has it after `npm install`: this checkout's dependencies and dist/.
    const clone = path.join(base, 'clone');
    await fs.mkdir(clone);
    const files = execFileSync('git', ['-C', ROOT, 'ls-files', '-co', '--exclude-standard'], { encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && !f.startsWith('dist/'));
    for (const f of files) {
      const from = path.join(ROOT, f);
      const st = await fs.stat(from).catch(() => null);
      if (!st?.isFile()) continue;
      await fs.mkdir(path.dirname(path.join(clone, f)), { recursive: true });
      await fs.copyFile(from, path.join(clone, f));
    }
    await fs.symlink(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
    // And the dist/ that `npm install` built there: `npm pack` rebuilds it only if the sources differ from what it was built from.
    await fs.cp(path.join(ROOT, 'dist'), path.join(clone, 'dist'), { recursive: true });
    const env = shellEnv(prefix);

    const install = sh(block(readme, 'install'), clone, env);
    expect(install.status, install.stdout + install.stderr).toBe(0);
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(install.stdout.trim().split('\n').at(-1)).toBe(version);
    const installed = path.join(prefix, 'bin', 'workboard');
    expect(spawnSync('bash', ['-c', 'command -v workboard'], { env, encoding: 'utf8' }).stdout.trim()).toBe(installed);
    // The installed package runs from its own files, not from this checkout.
    expect(await fs.realpath(installed)).toContain(path.join(prefix, 'lib', 'node_modules', 'workboard'));

    const here = path.join(base, 'tour');
    await fs.mkdir(here);
    const tour = sh(block(readme, 'tour'), here, env);
    expect(tour.status, tour.stdout + tour.stderr).toBe(0);
    expect(tour.stdout).toContain('ended (published)');
    expect(tour.stdout).toContain('2 chain(s) verified');

    const client = new Client({ name: 'readme-test', version: '1' });
    await client.connect(new StdioClientTransport({ command: installed, args: ['mcp', '--as', 'helper', '--board', path.join(here, 'team')], env, stderr: 'pipe' }));
    expect(client.getServerVersion()?.version).toBe(version);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['get_work', 'claim', 'submit', 'decide']));
    const runs = (await client.callTool({ name: 'list_runs', arguments: { state: 'ended' } })).structuredContent as { ok: boolean; data: { items: { process: string; outcome: string }[] } };
    expect(runs.data.items).toEqual([expect.objectContaining({ process: 'hello', outcome: 'published' })]);
    await client.close();
  }, 600_000);
});
