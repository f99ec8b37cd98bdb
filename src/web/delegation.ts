/**
 * The out-of-office page and its two forms (docs/people.md "Out of office"):
 * hand your work on until a date, and end a delegation (yours, or anyone's
 * for an operator). Every right and rule is the service's; a refusal shows
 * its issues beside the fields, with what was typed kept.
 */
import { h } from 'preact';
import { personName, zoneWords } from '../words/index.js';
import { first } from './form-values.js';
import { DelegationPage, type DelegationRow } from './pages/delegation.js';
import { MessagePage } from './pages/message.js';
import type { PostedForm } from './request.js';
import { frame, redirect, sendPage, statusFor, type Request } from './respond.js';

const row = (d: DelegationRow): DelegationRow => ({ from: d.from, to: d.to, since: d.since, until: d.until, ...(d.note ? { note: d.note } : {}) });

function show(r: Request, status: number, posted: { to: string; until: string; note: string }, issues: Map<string, string[]>): void {
  const svc = r.app.service;
  const m = svc.board.manifest;
  const me = r.actor.email.toLowerCase();
  const all = svc.delegations().map(row);
  const people = m.people
    .filter((p) => p.email.toLowerCase() !== me)
    .map((p) => ({ email: p.email, name: personName(m.people, p.email) }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const done = r.url.searchParams.get('done');
  sendPage(
    r.res,
    status,
    h(DelegationPage, {
      frame: frame(r, 'Out of office', { current: 'work' }),
      csrf: r.me.csrf,
      me: r.actor.email,
      mine: all.find((d) => d.from.toLowerCase() === me) ?? null,
      toMe: all.filter((d) => d.to.toLowerCase() === me),
      all: r.actor.operator ? all : null,
      people,
      posted,
      issues,
      zone: zoneWords(m.notifications.timeZone),
      done: done === 'set' || done === 'ended' ? done : null,
    }),
  );
}

export async function delegationPage(r: Request): Promise<void> {
  await r.app.service.board.refresh();
  show(r, 200, { to: '', until: '', note: '' }, new Map());
}

/** Issues by field ("to: …" beside "to"); the rest above the form. */
function byField(message: string, issues: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const i of issues.length ? issues : [message]) {
    const f = ['to', 'until', 'from'].find((x) => i.startsWith(`${x}: `));
    const key = f === 'from' || f === undefined ? '' : f;
    out.set(key, [...(out.get(key) ?? []), f ? i.slice(f.length + 2) : i]);
  }
  return out;
}

export async function delegatePost(r: Request, form: PostedForm): Promise<void> {
  const p = form.fields;
  const posted = { to: (first(p, 'to') ?? '').trim(), until: (first(p, 'until') ?? '').trim(), note: (first(p, 'note') ?? '').trim() };
  const missing = new Map<string, string[]>();
  if (posted.to === '') missing.set('to', ['choose who stands in for you']);
  if (posted.until === '') missing.set('until', ['give the day you are back']);
  if (missing.size > 0) return show(r, 422, posted, missing);
  const svc = r.app.service;
  const until = svc.untilFrom(posted.until);
  const res = await svc.delegate({ from: r.actor.email, to: posted.to, until, ...(posted.note ? { note: posted.note } : {}) }, r.actor);
  if (res.ok) return redirect(r.res, '/out-of-office?done=set');
  if (res.error.code === 'invalid') return show(r, 422, posted, byField(res.error.message, res.error.issues ?? []));
  sendPage(r.res, statusFor(res.error.code), h(MessagePage, { frame: frame(r, 'Not handed over'), title: 'Not handed over' }, h('p', null, res.error.message)));
}

export async function endDelegationPost(r: Request, form: PostedForm): Promise<void> {
  const from = (first(form.fields, 'from') ?? r.actor.email).trim();
  const res = await r.app.service.endDelegation(from, r.actor);
  if (res.ok) return redirect(r.res, '/out-of-office?done=ended');
  sendPage(
    r.res,
    statusFor(res.error.code),
    h(MessagePage, { frame: frame(r, 'Not ended'), title: 'Not ended' }, h('p', null, res.error.message), h('p', null, h('a', { href: '/out-of-office' }, 'Back to out of office'))),
  );
}
