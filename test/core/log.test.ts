/**
 * The log's own rules (core/log.ts), without a server: secrets' shapes cut
 * from messages, secret-named fields redacted, the request scope on every
 * line within it, words and JSON from the same event, settings refused
 * naming every bad value.
 */
import { describe, expect, it } from 'vitest';
import { createLogger, logSettings, requestScope } from '../../src/core/log.js';

const TOKEN = `wb_${'A1b2C3d4'.repeat(5)}xyz`;
const CODE = `wbl_${'q'.repeat(43)}`;
const COOKIE = `wbs_${'Z9-_'.repeat(11)}`;

function capture(format: 'json' | 'text', level: 'debug' | 'info' = 'info') {
  const out: string[] = [];
  return { out, log: createLogger({ format, level, write: (t) => void out.push(t) }) };
}

describe('the log', () => {
  it('cuts bearer tokens, sign-in codes and session cookies out of messages, keeping their kind', () => {
    const { out, log } = capture('json');
    log.warn(`refused ${TOKEN}, then ${CODE} and ${COOKIE}`);
    expect(JSON.parse(out[0]!).msg).toBe('refused wb_[redacted], then wbl_[redacted] and wbs_[redacted]');
  });

  it('redacts fields named like secrets, at the top and one level down', () => {
    const { out, log } = capture('json');
    log.info('asked', { token: 'plain-secret', headers: { authorization: 'Bearer x', cookie: 'c=1' }, smtp: { password: 'p' }, by: 'ann@example.com' });
    const line = JSON.parse(out[0]!);
    expect(line).toMatchObject({ token: '[redacted]', headers: { authorization: '[redacted]', cookie: '[redacted]' }, smtp: { password: '[redacted]' }, by: 'ann@example.com' });
    expect(out[0]).not.toMatch(/plain-secret|Bearer x|c=1|"p"/);
  });

  it('puts the request id on every line logged within its scope; words carry the same fields', () => {
    const json = capture('json');
    const text = capture('text');
    requestScope.run({ req: 'abc123-7' }, () => {
      json.log.info('submit: ok', { by: 'scout' });
      text.log.info('submit: ok', { by: 'scout' });
    });
    expect(JSON.parse(json.out[0]!)).toMatchObject({ level: 'info', req: 'abc123-7', by: 'scout', msg: 'submit: ok', time: expect.stringMatching(/Z$/) });
    expect(text.out[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z info  submit: ok \[req abc123-7, by scout\]\n$/);
  });

  it('keeps a message of several lines on one line in words', () => {
    const { out, log } = capture('text');
    log.warn('refused an edit: WORK.md is not valid\n  WORK.md: format: too new\n  WORK.md: name: bad');
    expect(out[0]).toMatch(/ warn  refused an edit: WORK\.md is not valid \| WORK\.md: format: too new \| WORK\.md: name: bad\n$/);
    expect(out[0]!.split('\n')).toHaveLength(2);
  });

  it('writes debug lines only at debug', () => {
    const quiet = capture('json');
    quiet.log.debug('get_work: ok');
    expect(quiet.out).toEqual([]);
    expect(quiet.log.enabled('debug')).toBe(false);
    const loud = capture('json', 'debug');
    loud.log.debug('get_work: ok');
    expect(loud.out).toHaveLength(1);
  });

  it('settings: flags over the environment over text and info; every bad value named', () => {
    expect(logSettings({}, {})).toEqual({ format: 'text', level: 'info' });
    expect(logSettings({}, { WORKBOARD_LOG_FORMAT: 'json', WORKBOARD_LOG_LEVEL: 'warn' })).toEqual({ format: 'json', level: 'warn' });
    expect(logSettings({ format: 'text' }, { WORKBOARD_LOG_FORMAT: 'json' })).toEqual({ format: 'text', level: 'info' });
    expect(logSettings({ format: 'xml', level: 'loud' }, {})).toEqual({
      problems: ['the log format must be json or text, got "xml"', 'the log level must be one of debug, info, warn, error, got "loud"'],
    });
  });
});
