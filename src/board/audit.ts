/**
 * The audit chain: one JSON object per line, hash-linked. `hash` is the
 * SHA-256 hex of the RFC 8785 canonical JSON of the line without `hash`;
 * `prevHash` is the previous line's hash, or GENESIS for seq 0. Anyone can
 * verify a chain without a secret. A coordinator also signs each line
 * (`signer`, `sig`: see signing.ts). Sealing and verifying are pure.
 */
import { canonicalJson, sha256Hex } from '../core/hash.js';
import type { Signer } from './signing.js';

export const GENESIS = 'GENESIS';

export interface AuditInput {
  fromRev: number;
  toRev: number;
  changes?: Record<string, unknown>;
  /** The committed files this transition wrote, with their new rev and content hash. */
  files?: Record<string, { rev: number; sha256: string }>;
  [key: string]: unknown;
}

export interface AuditDraft {
  actor: string;
  action: string;
  entity: string;
  input: AuditInput;
}

export interface AuditEvent extends AuditDraft {
  seq: number;
  ts: string;
  prevHash: string;
  /** The fingerprint of the key that signed the line (see signing.ts); absent on lines written before signing. */
  signer?: string;
  hash: string;
  /** Ed25519 over the hash of the line without `sig` and `hash` (see `contentHash`), base64url; `hash` covers it. */
  sig?: string;
}

export interface ChainHead {
  seq: number;
  hash: string;
  ts: string;
}

export function eventHash(event: Omit<AuditEvent, 'hash'>): string {
  return sha256Hex(canonicalJson(event));
}

/** What a line's signature signs: the hash of everything but the signature and the line's own hash. */
export function contentHash(event: Omit<AuditEvent, 'hash' | 'sig'> & { hash?: string; sig?: string }): string {
  const { hash: _h, sig: _s, ...rest } = event;
  return sha256Hex(canonicalJson(rest));
}

/** Seal a draft onto a chain head, signed when a signer is given. Time never goes backwards along a chain. */
export function sealEvent(draft: AuditDraft, head: ChainHead | null, now: string, signer?: Signer): AuditEvent {
  const ts = head && head.ts > now ? head.ts : now;
  const base = {
    seq: head ? head.seq + 1 : 0,
    ts,
    actor: draft.actor,
    action: draft.action,
    entity: draft.entity,
    input: draft.input,
    prevHash: head ? head.hash : GENESIS,
    ...(signer ? { signer: signer.fingerprint } : {}),
  };
  const signed = signer ? { ...base, sig: signer.sign(contentHash(base)) } : base;
  return { ...signed, hash: eventHash(signed) };
}

export function eventLine(event: AuditEvent): string {
  return `${JSON.stringify(event)}\n`;
}

export interface ChainBreak {
  line: number;
  reason: string;
}

export interface ChainReport {
  events: AuditEvent[];
  breaks: ChainBreak[];
  head: ChainHead | null;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Verify a chain file's text. Every break is reported with its line; nothing
 * is dropped silently. `from` continues a chain already verified up to that
 * head (the text then holds only the lines after it, starting at `firstLine`).
 */
export function verifyChain(text: string, from: ChainHead | null = null, firstLine = 1): ChainReport {
  const breaks: ChainBreak[] = [];
  const events: AuditEvent[] = [];
  if (text === '') return { events, breaks, head: from };
  const lines = text.split('\n');
  const torn = lines[lines.length - 1] !== '';
  if (!torn) lines.pop();
  let prev: { seq: number; hash: string; ts: string } | null = from;
  lines.forEach((raw, i) => {
    const lineNo = i + firstLine;
    const isLast = i === lines.length - 1;
    if (isLast && torn) {
      breaks.push({ line: lineNo, reason: 'torn line: the last line has no line end (an interrupted append)' });
      return;
    }
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      breaks.push({ line: lineNo, reason: 'not valid JSON' });
      prev = null;
      return;
    }
    if (
      !isObj(v) ||
      typeof v.seq !== 'number' ||
      typeof v.ts !== 'string' ||
      typeof v.hash !== 'string' ||
      typeof v.prevHash !== 'string' ||
      typeof v.actor !== 'string' ||
      typeof v.action !== 'string' ||
      typeof v.entity !== 'string' ||
      !isObj(v.input)
    ) {
      breaks.push({ line: lineNo, reason: 'not an audit event (seq, ts, actor, action, entity, input, prevHash, hash)' });
      prev = null;
      return;
    }
    const ev = v as unknown as AuditEvent;
    const { hash, ...rest } = ev;
    if (eventHash(rest) !== hash) breaks.push({ line: lineNo, reason: `bad hash: the line's content does not match its hash (seq ${ev.seq})` });
    const atStart = i === 0 && from === null;
    const expectedSeq = atStart ? 0 : prev ? prev.seq + 1 : undefined;
    if (expectedSeq !== undefined && ev.seq !== expectedSeq) breaks.push({ line: lineNo, reason: `seq gap: expected ${expectedSeq}, found ${ev.seq}` });
    const expectedPrev = atStart ? GENESIS : prev ? prev.hash : undefined;
    if (expectedPrev !== undefined && ev.prevHash !== expectedPrev) breaks.push({ line: lineNo, reason: "broken link: prevHash is not the previous line's hash" });
    if (prev && ev.ts < prev.ts) breaks.push({ line: lineNo, reason: `time goes backwards: ${ev.ts} after ${prev.ts}` });
    events.push(ev);
    prev = ev;
  });
  const last = events[events.length - 1];
  return { events, breaks, head: last ? { seq: last.seq, hash: last.hash, ts: last.ts } : from };
}

/** The latest recorded state of each file along a chain: what the board's own writers last wrote. */
export function recordedFiles(events: readonly AuditEvent[], into: Map<string, { rev: number; sha256: string }> = new Map()): Map<string, { rev: number; sha256: string }> {
  const out = into;
  for (const ev of events) {
    const files = ev.input.files;
    if (!isObj(files)) continue;
    for (const [p, f] of Object.entries(files)) {
      if (isObj(f) && typeof f.rev === 'number' && typeof f.sha256 === 'string') out.set(p, { rev: f.rev, sha256: f.sha256 });
    }
  }
  return out;
}
