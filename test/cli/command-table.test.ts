/**
 * The CLI loads only the module of the command being run: its table of which
 * module registers which commands must be exactly what each module registers,
 * or a command would be missing when run on its own. bin/cli-entry.js runs
 * most commands from the light bundle, which leaves the heavy ones out.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIGHT_CACHE, loadLight, loadMain } from '../../bin/cli-entry.js';
import { Cli } from '../../src/cli/cli.js';
import { COMMAND_MODULES, HEAVY_COMMANDS, runsLight } from '../../src/cli/command-table.js';
import { ensureBuilt, ROOT } from '../support/cli-run.js';

describe('the command table', () => {
  it('names, for every module, exactly the commands it registers, and no command twice', async () => {
    const seen: string[] = [];
    for (const [names, load] of COMMAND_MODULES) {
      const program = new Command();
      (await load()).register(program, new Cli(program));
      expect(program.commands.map((c) => c.name()).sort()).toEqual([...names].sort());
      seen.push(...names);
    }
    expect(new Set(seen).size).toBe(seen.length);
    // Its work is importing every command module (the whole CLI, transformed on first import): about a second
    // on a quiet machine, over a minute on a busy one, where the default minute ran out.
  }, 300_000);

  it('sends a command line to the light bundle only when it names a known command that is not heavy', () => {
    expect(runsLight(['show', 'r-1'])).toBe(true);
    expect(runsLight(['--board', 'serve', '--as', 'map', 'inbox'])).toBe(true);
    expect(runsLight(['help', 'sync'])).toBe(true);
    for (const heavy of ['serve', 'demo', 'mcp', 'map']) expect(runsLight([heavy]), heavy).toBe(false);
    expect(runsLight(['help', 'serve'])).toBe(false);
    // Help, a bare call and an unknown command list or suggest every command.
    expect(runsLight([])).toBe(false);
    expect(runsLight(['help'])).toBe(false);
    expect(runsLight(['--json'])).toBe(false);
    expect(runsLight(['serv'])).toBe(false);
  });
});

describe('the light bundle (dist/bundle/light.cjs)', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  const refusesHeavy = async (main: (argv: string[]) => Promise<number>) => {
    for (const heavy of HEAVY_COMMANDS) await expect(main(['node', 'workboard', heavy])).rejects.toThrow(`workboard ${heavy} runs from dist/bundle/main.js, not light.cjs`);
  };

  it('leaves the heavy commands out, and says where they run if one is ever asked of it', async () => {
    await refusesHeavy(loadLight().main);
  });

  it('is what bin/workboard.js runs for a light command, and the whole CLI for a heavy one', async () => {
    await refusesHeavy(await loadMain(['show', 'r-1']));
    const whole = ((await import(pathToFileURL(path.join(ROOT, 'dist/bundle/main.js')).href)) as { main: unknown }).main;
    expect(await loadMain(['serve'])).toBe(whole);
    expect(await loadMain()).toBe(whole);
  });

  it('comes with a code cache this node takes', () => {
    const { script } = loadLight(readFileSync(path.join(ROOT, 'dist', LIGHT_CACHE)));
    expect(script.cachedDataRejected).toBe(false);
  });
});
