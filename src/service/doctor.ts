/**
 * What needs an operator, gathered for `workboard doctor` and the web app's
 * doctor page alike: locks (stale or held), interrupted commits, refused
 * files, parked notifications, unmerged board files, audit breaks, checked
 * steps with no evaluator, overdue steps, work assigned to nobody, and recent
 * internal faults. Reads only; mending what crashes left behind is the
 * caller's choice (`board.store.recover()`), done before this.
 */
import { execFileSync } from 'node:child_process';
import type { Board } from '../board/board.js';
import { hostname } from 'node:os';
import { JOURNAL_DIR, LOCKS_DIR, paths, REFUSED_FILE, RUNS_DIR, SIGNING_KEY_FILE, SYNC_INTENT } from '../board/layout.js';
import { KEY_DIR } from '../board/signing.js';
import { isBreakable, pidAlive } from '../board/lock.js';
import { listProcessNames, listVersions, loadVersion } from '../board/processes.js';
import { verifyBoard } from '../board/verify.js';
import { verifyChain } from '../board/audit.js';
import { holdingLines } from '../board/superseded.js';
import { supersededOf } from './superseded.js';
import { allEntries, statusOf } from '../notify/outbox.js';
import { emailsOf, fourEyesApplies } from '../engine/rights.js';
import { delegationsInForce } from '../engine/delegation.js';
import { exactTime, personName } from '../words/index.js';
import { FULL_OFFER } from '../protocol/offer.js';
import { incidentsSince, INCIDENT_SHOWN_MS, INCIDENTS_FILE } from './incidents.js';
import type { Service } from './service.js';
import { readSyncState, syncingServeRuns, syncStateWords, type SyncState } from './sync-state.js';

export interface Finding {
  kind:
    | 'git-sync'
    | 'stale-lock'
    | 'held-lock'
    | 'pending-journal'
    | 'refused-file'
    | 'audit'
    | 'signing-key'
    | 'overdue'
    | 'nobody'
    | 'merge-conflict'
    | 'no-evaluator'
    | 'incident'
    | 'notification'
    | 'four-eyes'
    | 'superseded';
  where: string;
  detail: string;
}

/** Board files git reports as unmerged, when the board is in a git repository. */
function unmerged(root: string): string[] {
  try {
    const out = execFileSync('git', ['-C', root, 'ls-files', '-u', '--full-name', '--', '.'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return [
      ...new Set(
        out
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t')[1]!),
      ),
    ];
  } catch {
    return [];
  }
}

async function locks(board: Board, findings: Finding[]): Promise<void> {
  const lockDir = LOCKS_DIR;
  for (const n of board.state.list(lockDir)) {
    const raw = await board.state.read(`${lockDir}/${n}`);
    const st = board.listing.stat(`${lockDir}/${n}`);
    if (!raw || !st) continue;
    type LockInfo = { host: string; pid: number; acquiredAt: string };
    let info: LockInfo | null = null;
    try {
      info = JSON.parse(raw.toString('utf8')) as LockInfo;
    } catch {
      info = null;
    }
    const breakable = isBreakable({ info: info ? { ...info, token: '' } : null, mtimeMs: Number(st.mtimeNs / 1_000_000n) }, board.manifest.settings.lockStaleSeconds * 1000, Date.now());
    findings.push({
      kind: breakable ? 'stale-lock' : 'held-lock',
      where: n,
      detail: info ? `pid ${info.pid} on ${info.host} since ${info.acquiredAt}${pidAlive(info.pid) ? '' : ' (pid gone)'}` : 'unreadable lock file',
    });
  }
}

/**
 * The signing key on record for this machine must still be in `.work/`
 * (docs/operations.md, What to back up): audit/keys/ says this host signed
 * lines, but `.work/audit-key.pem` is gone (a lost or unrestored `.work/`).
 * The next commit would sign with a new key no rotation links to the old.
 */
async function signingKey(board: Board, findings: Finding[]): Promise<void> {
  if (board.listing.stat(SIGNING_KEY_FILE) !== null) return;
  const here = hostname();
  const ours: string[] = [];
  for (const n of (board.listing.names(KEY_DIR) ?? []).filter((x) => x.endsWith('.json'))) {
    try {
      const rec = JSON.parse((await board.store.readBytes(`${KEY_DIR}/${n}`))?.toString('utf8') ?? 'null') as { host?: unknown; fingerprint?: unknown } | null;
      if (rec?.host === here && typeof rec.fingerprint === 'string') ours.push(rec.fingerprint);
    } catch {
      // a damaged record is an audit break, reported there
    }
  }
  if (ours.length === 0) return;
  findings.push({
    kind: 'signing-key',
    where: SIGNING_KEY_FILE,
    detail: `missing: this machine (${here}) signed audit lines with key ${ours.join(', ')} (on record in ${KEY_DIR}/), but its private key is gone; restore ${SIGNING_KEY_FILE} from a backup before the next commit, or that commit starts a new key that no rotation links to the old one (earlier lines still verify)`,
  });
}

/** Published checked steps that can no longer complete: their evaluator was removed from WORK.md. */
async function noEvaluator(board: Board, findings: Finding[]): Promise<void> {
  if (board.manifest.evaluator) return;
  for (const name of await listProcessNames(board)) {
    for (const v of await listVersions(board, name)) {
      const p = await loadVersion(board, name, v, FULL_OFFER).catch(() => null);
      const checked = p?.process.steps.filter((s) => s.check).map((s) => s.id) ?? [];
      if (checked.length > 0)
        findings.push({ kind: 'no-evaluator', where: `${name} v${v}`, detail: `steps ${checked.join(', ')} have a check but WORK.md configures no evaluator; their submissions answer retry` });
    }
  }
}

/** Overdue steps and work items nobody on the board can take, across the open runs. */
async function openWork(board: Board, service: Service, findings: Finding[], now: Date): Promise<void> {
  const open: string[] = [];
  for (let cursor: string | undefined; ;) {
    const pageOf = await service.listRuns({ limit: 100, ...(cursor ? { cursor } : {}) });
    open.push(...pageOf.items.filter((x) => x.state === 'active' || x.state === 'waiting').map((x) => x.id));
    if (!pageOf.nextCursor) break;
    cursor = pageOf.nextCursor;
  }
  const people = new Set([...board.manifest.people.map((p) => p.email.toLowerCase()), ...board.manifest.operators.map((o) => o.toLowerCase())]);
  const personAt = (m: string) => board.manifest.people.find((p) => emailsOf(p).has(m.toLowerCase())) ?? { email: m };
  const inForce = delegationsInForce(board.manifest.delegations ?? [], now);
  for (const id of open) {
    const result = await service.call('get_run', { runId: id }, { kind: 'agent', id: 'doctor' });
    if (!result.ok) {
      // A run whose files are refused is already listed (refused-file, audit); it must not stop the report.
      if (!findings.some((f) => f.where === id || f.where.includes(`${RUNS_DIR}/${id}/`)))
        findings.push({ kind: 'refused-file', where: id, detail: `${result.error.message} ${(result.error.issues ?? []).join('; ')}`.trim() });
      continue;
    }
    const view = result.data;
    findings.push(...(await setAsideFindings(board, id)));
    const fourEyes = fourEyesApplies(board.manifest.fourEyes, view.run.process);
    for (const s of view.steps) if (s.overdue) findings.push({ kind: 'overdue', where: `${id}/${s.id}`, detail: `due ${s.due}` });
    for (const w of view.workItems) {
      const to = w.assignedTo;
      const members = to.group === 'operators' ? board.manifest.operators : to.group ? (board.manifest.groups[to.group] ?? []) : [to.person ?? ''];
      if (!members.some((m) => people.has(m.toLowerCase()))) {
        findings.push({
          kind: 'nobody',
          where: `${id}/${w.stepId}`,
          detail: to.group
            ? `work item ${w.id} is assigned to group ${to.group}, which has no one on this board`
            : `work item ${w.id} is assigned personally to ${to.person}, who is not a person on this board (removed?); an operator can cancel the run or re-add them`,
        });
      } else if (fourEyes && w.kind === 'approve') {
        // Four eyes bars whoever started the run or completed another of its steps: is anyone left?
        const barred = new Set(
          [
            view.run.startedBy,
            ...Object.entries(view.data.steps)
              .filter(([step]) => step !== w.stepId)
              .flatMap(([, d]) => [d.by, ...d.history.map((h) => h.by)]),
          ]
            .filter((x): x is string => !!x)
            .map((x) => x.toLowerCase()),
        );
        const barredAs = (m: string) => [...emailsOf(personAt(m))].some((e) => barred.has(e));
        const left = members.filter((m) => people.has(m.toLowerCase()) && !barredAs(m));
        if (left.length === 0)
          findings.push({
            kind: 'four-eyes',
            where: `${id}/${w.stepId}`,
            detail: `work item ${w.id}: four eyes bars everyone who could approve it (${members.join(', ')} started the run or did an earlier step); add someone to ${to.group ?? 'the group'}`,
          });
        else {
          // Those left may all be away, each standing in a delegate four eyes bars: then nobody who is in can decide it.
          const away = left.map((m) => ({ m, d: inForce.find((d) => emailsOf(personAt(m)).has(d.from.toLowerCase())) }));
          if (away.every((a) => a.d && barredAs(a.d.to))) {
            const name = (e: string) => personName(board.manifest.people, e);
            const told = away
              .map((a) => `${name(a.m)} is out of office until ${exactTime(a.d?.until ?? '', board.manifest.notifications.timeZone)} and hands their work to ${name(a.d?.to ?? '')}`)
              .join('; ');
            findings.push({
              kind: 'four-eyes',
              where: `${id}/${w.stepId}`,
              detail: `work item ${w.id}: nobody who is in can approve it: ${told}, whom four eyes bars (started the run or did an earlier step); the person away can still decide it, or add someone to ${to.group ?? 'the group'}`,
            });
          }
        }
      }
    }
  }
}

/** `serve --git-sync`'s record, in words, and whether the serve that wrote it still runs; null when no serve synced here. */
export async function syncStatus(board: Board, now = new Date()): Promise<{ state: SyncState; running: boolean; words: ReturnType<typeof syncStateWords> } | null> {
  const state = await readSyncState(board.state);
  if (state === null) return null;
  const running = syncingServeRuns(state);
  return { state, running, words: syncStateWords(state, now, running) };
}

/** Everything doctor reports, in the order it reports it. */
export async function doctorFindings(board: Board, service: Service, now = new Date()): Promise<Finding[]> {
  const findings: Finding[] = [];
  const sync = await syncStatus(board);
  if (sync && sync.state.failingInARow > 0)
    findings.push({ kind: 'git-sync', where: 'serve --git-sync', detail: [sync.words.failure, sync.words.good, sync.words.next].filter((x) => x !== null).join('; ') });
  await locks(board, findings);
  for (const n of board.state.pendingJournals()) {
    findings.push({
      kind: 'pending-journal',
      where: n,
      detail: `${JOURNAL_DIR}/${n}` === SYNC_INTENT ? 'an interrupted workboard sync; the next sync finishes it' : 'an interrupted commit; the next write or workboard serve rolls it forward',
    });
  }
  const refused = await board.state.readText(REFUSED_FILE);
  if (refused !== null) for (const [run, why] of Object.entries(JSON.parse(refused) as Record<string, string[]>)) findings.push({ kind: 'refused-file', where: run, detail: why.join('; ') });
  for (const e of await allEntries(board.state)) {
    if (statusOf(e) !== 'parked') continue;
    const why = Object.entries(e.deliveries ?? {})
      .filter(([, d]) => d.parkedAt)
      .map(([k, d]) => `${k}: ${d.lastError ?? 'failed'}`);
    findings.push({ kind: 'notification', where: e.id, detail: `${e.subject} — parked (${why.join('; ')}); workboard notifications retry ${e.id}` });
  }
  for (const file of unmerged(board.root))
    findings.push({ kind: 'merge-conflict', where: file, detail: 'a git merge left this board file unresolved (equal revs with different content, or diverging audit chains)' });
  const audit = await verifyBoard(board);
  for (const c of audit.chains) for (const b of c.breaks) findings.push({ kind: 'audit', where: `${b.file}${b.line !== null ? `:${b.line}` : ''}`, detail: b.reason });
  await signingKey(board, findings);
  await noEvaluator(board, findings);
  await openWork(board, service, findings, now);
  for (const i of await incidentsSince(board.state, new Date(Date.now() - INCIDENT_SHOWN_MS))) {
    findings.push({ kind: 'incident', where: i.id, detail: `${i.ts} ${i.tool}: ${i.message} (full record in ${INCIDENTS_FILE}; shown for 24 h)` });
  }
  return findings;
}

/**
 * An open run's transitions that a merge set aside: who did what, and whether
 * an operator can still take that side (the run has not moved since).
 */
async function setAsideFindings(board: Board, runId: string): Promise<Finding[]> {
  const branches = await supersededOf(board, runId);
  if (branches.length === 0) return [];
  const chain = (await board.store.readBytes(paths.runChain(runId)))?.toString('utf8') ?? '';
  const head = verifyChain(chain).head?.hash;
  return branches.flatMap((b, i) => {
    // Acts that hold on the kept side (applied again on merge, or already done there) were not set aside (docs/git.md "The replay").
    const holds = holdingLines(b);
    const open = b.lines.filter((l) => !holds.has(l.hash) && !['server', 'coordinator', 'external'].includes(l.actor));
    if (b.outcomes && open.length === 0) return [];
    const acts = open.map((l) => `${l.actor} ${l.action.replace(/^[a-z-]+\./, '')} ${l.entity.split('/')[1] ?? ''}`.trim());
    const at = b.lines[b.lines.length - 1]!.ts;
    const how = b.kept === head ? `; workboard resolve ${runId} --take ${i + 1} takes that side` : '; the run has moved since, so it stays superseded';
    return [{ kind: 'superseded' as const, where: runId, detail: `superseded on merge: ${acts.join(', ') || `${b.lines.length} transition(s)`} (up to ${at})${how}` }];
  });
}
