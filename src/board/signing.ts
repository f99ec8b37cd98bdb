/**
 * Signed audit lines. Hash links let anyone check a chain, but whoever can
 * edit the files can also re-hash a rewritten history. So each coordinator
 * signs every line it appends with an Ed25519 key that is never committed
 * (`.work/audit-key.pem`); its public half is committed once, as
 * `audit/keys/<fingerprint>.json`, where auditors can pin it. A rotation is a
 * new key file carrying the previous key's signature over the new key.
 *
 * The rules here are pure: keys and lines in, signatures and findings out.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson, sha256Hex } from '../core/hash.js';

export const KEY_DIR = 'audit/keys';

/** A committed public key: what an auditor pins, by its fingerprint. */
export interface KeyRecord {
  fingerprint: string;
  /** The raw 32-byte Ed25519 public key, base64url. */
  publicKey: string;
  host: string;
  createdAt: string;
  /** The key this one replaced, and that key's signature over this record's other fields. */
  rotates?: string;
  rotationSig?: string;
}

export interface Signer {
  fingerprint: string;
  /** A signature over an audit line's content hash, base64url. */
  sign(hash: string): string;
}

/** The first 16 bytes of the raw public key's SHA-256, hex: short enough for every line, long enough to be unique. */
export function fingerprintOf(rawPublicKey: Buffer): string {
  return sha256Hex(rawPublicKey).slice(0, 32);
}

function rawPublic(key: KeyObject): Buffer {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' }) as { x: string };
  return Buffer.from(jwk.x, 'base64url');
}

/** Key objects by raw public key: a board has a few keys and thousands of lines, and building the object cost more than a tenth of `doctor`'s check of every signature. */
const publicKeys = new Map<string, KeyObject>();

function publicFromRaw(raw: string): KeyObject {
  let key = publicKeys.get(raw);
  if (key === undefined) {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw }, format: 'jwk' });
    // Bounded however many keys a hostile board lists: a miss only costs building the object again.
    if (publicKeys.size >= 256) publicKeys.clear();
    publicKeys.set(raw, key);
  }
  return key;
}

export function newPrivateKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

export function signerFrom(privatePem: string): Signer & { record(host: string, createdAt: string, rotated?: { from: Signer }): KeyRecord } {
  const key = createPrivateKey(privatePem);
  const raw = rawPublic(key);
  const fingerprint = fingerprintOf(raw);
  const s: Signer = { fingerprint, sign: (hash) => sign(null, Buffer.from(hash, 'utf8'), key).toString('base64url') };
  return {
    ...s,
    record(host, createdAt, rotated) {
      const base: KeyRecord = { fingerprint, publicKey: raw.toString('base64url'), host, createdAt };
      if (!rotated) return base;
      const withFrom = { ...base, rotates: rotated.from.fingerprint };
      return { ...withFrom, rotationSig: rotated.from.sign(sha256Hex(canonicalJson(withFrom))) };
    },
  };
}

/** Does this signature over `hash` verify under the record's key? */
export function verifySig(rec: KeyRecord, hash: string, sig: string): boolean {
  try {
    return verify(null, Buffer.from(hash, 'utf8'), publicFromRaw(rec.publicKey), Buffer.from(sig, 'base64url'));
  } catch {
    return false;
  }
}

export interface KeyRing {
  /** Keys whose record is sound (fingerprint matches, rotation signed by the key it replaces). */
  keys: Map<string, KeyRecord>;
  /** When a key was replaced: lines it signs after this are not its to sign. */
  retiredAt: Map<string, string>;
  problems: { file: string; reason: string }[];
}

/** Check the committed key records: each fingerprint is its key's, each rotation is signed by the key it replaces. */
export function keyRing(records: { file: string; value: unknown }[]): KeyRing {
  const problems: KeyRing['problems'] = [];
  const candidates = new Map<string, { file: string; rec: KeyRecord }>();
  for (const { file, value } of records) {
    const r = value as Partial<KeyRecord> | null;
    if (!r || typeof r.fingerprint !== 'string' || typeof r.publicKey !== 'string' || typeof r.createdAt !== 'string' || typeof r.host !== 'string') {
      problems.push({ file, reason: 'not a key record (fingerprint, publicKey, host, createdAt)' });
      continue;
    }
    let raw: Buffer;
    try {
      raw = rawPublic(publicFromRaw(r.publicKey));
    } catch {
      problems.push({ file, reason: 'publicKey is not an Ed25519 key' });
      continue;
    }
    if (fingerprintOf(raw) !== r.fingerprint || !file.endsWith(`/${r.fingerprint}.json`)) {
      problems.push({ file, reason: 'the fingerprint is not that of its publicKey, or not the file name' });
      continue;
    }
    candidates.set(r.fingerprint, { file, rec: r as KeyRecord });
  }
  const keys = new Map<string, KeyRecord>();
  const retiredAt = new Map<string, string>();
  for (const [fp, { file, rec }] of candidates) {
    if (rec.rotates !== undefined) {
      const from = candidates.get(rec.rotates);
      const { rotationSig, ...signed } = rec;
      if (!from || typeof rotationSig !== 'string' || !verifySig(from.rec, sha256Hex(canonicalJson(signed)), rotationSig)) {
        problems.push({ file, reason: `claims to rotate key ${rec.rotates} without that key's valid signature` });
        continue;
      }
      const prior = retiredAt.get(rec.rotates);
      if (prior === undefined || rec.createdAt < prior) retiredAt.set(rec.rotates, rec.createdAt);
    }
    keys.set(fp, rec);
  }
  return { keys, retiredAt, problems };
}

/**
 * The keys an auditor trusts: with pins, those pinned and those reached from
 * a pinned key through signed rotations; without, every sound key on record.
 */
export function trustedKeys(ring: KeyRing, pins: readonly string[]): Set<string> {
  if (pins.length === 0) return new Set(ring.keys.keys());
  const trusted = new Set(pins.filter((p) => ring.keys.has(p)));
  for (let grew = true; grew;) {
    grew = false;
    for (const rec of ring.keys.values()) {
      if (rec.rotates !== undefined && trusted.has(rec.rotates) && !trusted.has(rec.fingerprint)) {
        trusted.add(rec.fingerprint);
        grew = true;
      }
    }
  }
  return trusted;
}

export interface SignedLine {
  /** The hash the signature signs (audit.ts `contentHash`). */
  content: string;
  ts: string;
  signer?: unknown;
  sig?: unknown;
  /**
   * An unsigned line a merge wrote when it applied another clone's act again: its
   * `replayOf` names that act's signed line, kept beside the chain (docs/git.md "The merge rule").
   */
  vouched?: boolean;
}

/**
 * Check the signatures along one chain. Unsigned lines may only come before
 * the chain's first signed one (history written before signing began), and
 * not at all when the auditor pinned keys (`strict`).
 */
export function signatureBreaks(lines: readonly SignedLine[], ring: KeyRing, trusted: ReadonlySet<string>, strict: boolean): { line: number; reason: string }[] {
  const breaks: { line: number; reason: string }[] = [];
  let signedSeen = false;
  lines.forEach((l, i) => {
    const line = i + 1;
    if (l.sig === undefined && l.signer === undefined) {
      if (l.vouched) return;
      if (strict) breaks.push({ line, reason: 'unsigned line, and keys are pinned' });
      else if (signedSeen) breaks.push({ line, reason: 'unsigned line after signed ones (signatures removed?)' });
      return;
    }
    signedSeen = true;
    if (typeof l.signer !== 'string' || typeof l.sig !== 'string') {
      breaks.push({ line, reason: 'signer and sig must both be strings' });
      return;
    }
    const rec = ring.keys.get(l.signer);
    if (!rec) breaks.push({ line, reason: `signed by key ${l.signer}, which is not on record in ${KEY_DIR}/` });
    else if (!trusted.has(l.signer)) breaks.push({ line, reason: `signed by key ${l.signer}, which is not a pinned key or rotated from one` });
    else if (!verifySig(rec, l.content, l.sig)) breaks.push({ line, reason: `bad signature by key ${l.signer}: the line was changed after it was signed` });
    else {
      const retired = ring.retiredAt.get(l.signer);
      if (retired !== undefined && l.ts > retired) breaks.push({ line, reason: `signed by key ${l.signer} after it was rotated out at ${retired}` });
    }
  });
  return breaks;
}
