/** People by the names WORK.md declares for them. Pure. */

export interface PersonLike {
  email: string;
  name?: string;
  /** Emails the person had before a rename: runs that name them are still theirs. */
  formerEmails?: string[];
}

/** The declared name of the person with this email (now or before a rename), else the email itself. */
export function personName(people: readonly PersonLike[], email: string): string {
  const e = email.toLowerCase();
  const p = people.find((x) => x.email.toLowerCase() === e || (x.formerEmails ?? []).some((f) => f.toLowerCase() === e));
  return p?.name?.trim() ? p.name.trim() : email;
}
