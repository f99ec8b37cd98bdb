/**
 * serve's log (pino): one line per event, with its level, its time, the
 * request it happened in (an HTTP request's id, carried by `requestScope`)
 * and who acted. JSON lines for a log collector (`--log-format json`,
 * WORKBOARD_LOG_FORMAT=json), readable words otherwise (docs/operations.md,
 * Logs). Secrets never reach a line: fields that hold them are redacted by
 * name, and the shapes of workboard's own secrets (bearer tokens `wb_…`,
 * sign-in codes `wbl_…`, session cookies `wbs_…`) are cut from every message.
 * Webhook secrets and SMTP passwords are never handed to the log at all.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type Logger as Pino } from 'pino';

export type LogFormat = 'json' | 'text';
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const isLogLevel = (s: string): s is LogLevel => LOG_LEVELS.some((l) => l === s);

/** The request a line belongs to: set around each HTTP request, read by every line logged within it. */
export const requestScope = new AsyncLocalStorage<{ req: string }>();

/** Field names whose values are never written, wherever they sit. */
const SECRET_FIELDS = ['token', 'authorization', 'cookie', 'password', 'pass', 'secret', 'code'];
const REDACT = SECRET_FIELDS.flatMap((f) => [f, `*.${f}`]);

/** workboard's own secrets by their shape: the prefix stays, so a line still says what kind was there. */
const SECRET_SHAPES = /\b(wb|wbl|wbs)_[A-Za-z0-9_-]{16,}/g;

export function scrub(text: string): string {
  return text.replace(SECRET_SHAPES, '$1_[redacted]');
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Is a line of this level written? (So a caller skips building one that is not.) */
  enabled(level: LogLevel): boolean;
}

/** The format and level asked for: the flags, else WORKBOARD_LOG_FORMAT and WORKBOARD_LOG_LEVEL, else text and info. Problems name every bad value. */
export function logSettings(flags: { format?: string; level?: string }, env: NodeJS.ProcessEnv = process.env): { format: LogFormat; level: LogLevel } | { problems: string[] } {
  const format = flags.format ?? env.WORKBOARD_LOG_FORMAT ?? 'text';
  const level = flags.level ?? env.WORKBOARD_LOG_LEVEL ?? 'info';
  const formatOk = format === 'json' || format === 'text';
  const levelOk = isLogLevel(level);
  const problems: string[] = [];
  if (!formatOk) problems.push(`the log format must be json or text, got "${format}"`);
  if (!levelOk) problems.push(`the log level must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  return formatOk && levelOk ? { format, level } : { problems };
}

/** A JSON line as readable words, still one line an event: time, level, message (its own lines joined by ' | '), then its fields (request, who, …) in brackets. */
export function inWords(line: string): string {
  const { time, level, msg, ...fields } = JSON.parse(line) as { time: string; level: string; msg: string } & Record<string, unknown>;
  const rest = Object.entries(fields).map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return `${time} ${level.padEnd(5)} ${msg
    .split('\n')
    .map((l) => l.trim())
    .join(' | ')}${rest.length > 0 ? ` [${rest.join(', ')}]` : ''}\n`;
}

export function createLogger(o: { format: LogFormat; level: LogLevel; write?: (text: string) => void }): Logger {
  const write = o.write ?? ((text: string) => void process.stdout.write(text));
  const p: Pino = pino(
    {
      level: o.level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT, censor: '[redacted]' },
      mixin: () => requestScope.getStore() ?? {},
    },
    { write: o.format === 'json' ? write : (line: string) => write(inWords(line)) },
  );
  const at = (level: LogLevel) => (msg: string, fields?: Record<string, unknown>) => (fields ? p[level](fields, scrub(msg)) : p[level](scrub(msg)));
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), enabled: (level) => p.isLevelEnabled(level) };
}
