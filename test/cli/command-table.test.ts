/**
 * The CLI loads only the module of the command being run: its table of which
 * module registers which commands must be exactly what each module registers,
 * or a command would be missing when run on its own.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { Cli } from '../../src/cli/cli.js';
import { COMMAND_MODULES } from '../../src/cli/main.js';

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
});
