/**
 * The protocol's tools from the command line, for people, operators and
 * scripts: each command is one service call as the `--as` identity, and with
 * --json it prints exactly the tool's result object. The commands live in
 * ../tools/, grouped by who uses them; this file lists them in the order
 * `workboard help` shows them.
 */
import type { Command } from 'commander';
import type { Cli } from '../cli.js';
import * as agents from '../tools/for-agents.js';
import * as operators from '../tools/for-operators.js';
import * as people from '../tools/for-people.js';

const IN_HELP_ORDER = [
  agents.start,
  agents.describe,
  operators.runs,
  people.show,
  people.inbox,
  people.decide,
  operators.cancel,
  operators.priority,
  agents.event,
  agents.upload,
  agents.work,
  agents.claim,
  agents.renew,
  agents.submit,
  agents.escalate,
];

export function register(program: Command, cli: Cli): void {
  for (const add of IN_HELP_ORDER) add(program, cli);
}
