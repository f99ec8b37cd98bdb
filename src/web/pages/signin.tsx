/**
 * Signing in: the page a single-use link opens asks before the code is used,
 * so a link scanner cannot burn it; the signed-out page offers to email a
 * link where the board sends email, else says whom to ask.
 */
import { Layout, type Frame } from './layout.js';
import { IssueList, Notice } from './parts.js';

export function SignInPage({ frame, code, email, name, next }: { frame: Frame; code: string; email: string; name?: string; next?: string }) {
  return (
    <Layout frame={frame}>
      <h1>Sign in</h1>
      <p>
        This link signs you in as{' '}
        {name && name !== email ? (
          <>
            <strong>{name}</strong> ({email})
          </>
        ) : (
          <strong>{email}</strong>
        )}
        . It works once.
      </p>
      <form method="post" action="/signin">
        <input type="hidden" name="code" value={code} />
        {next ? <input type="hidden" name="next" value={next} /> : null}
        <button type="submit" class="primary">
          Sign in as {email}
        </button>
      </form>
    </Layout>
  );
}

/** The form that asks for a link by email: the address is never filled in from the URL. */
export interface AskForLink {
  /** The pre-session CSRF token (security.ts). */
  csrf: string;
  /** The address a link was just asked for: the answer, the same whoever it belongs to. */
  sentTo?: string;
  /** What is wrong with the address typed, in words. */
  addressProblem?: string;
}

export function SignInHelp({ frame, board, problem, status, next, ask }: { frame: Frame; board: string; problem?: string; status?: 'out'; next?: string; ask?: AskForLink }) {
  return (
    <Layout frame={frame}>
      <h1>Sign in to {board}</h1>
      {problem ? (
        <Notice kind="error" title="That did not sign you in">
          {<p>{problem}</p>}
        </Notice>
      ) : null}
      {status === 'out' ? <Notice kind="ok" title="You are signed out" /> : null}
      {ask?.sentTo ? (
        <Notice kind="ok" title="Check your email">
          <p>
            If <strong>{ask.sentTo}</strong> belongs to someone on this board, a sign-in link is on its way to them. It works once, within 15 minutes.
          </p>
          <p>Nothing after a few minutes? Check the address and ask again, or ask an operator of this board.</p>
        </Notice>
      ) : null}
      {next ? <p>You opened a page that needs you to sign in: once you are signed in, you land on it.</p> : null}
      {ask ? <LinkForm ask={ask} next={next} /> : <p>People sign in with a link that works once, for 15 minutes. Ask an operator of this board to send you one.</p>}
    </Layout>
  );
}

function LinkForm({ ask, next }: { ask: AskForLink; next?: string }) {
  return (
    <form method="post" action="/signin" novalidate>
      <h2>Email me a sign-in link</h2>
      <p>Type the email address this board knows you by. We send a link that signs you in once, within 15 minutes.</p>
      <input type="hidden" name="csrf" value={ask.csrf} />
      {next ? <input type="hidden" name="next" value={next} /> : null}
      <div class={`field${ask.addressProblem ? ' has-issues' : ''}`}>
        <label for="signin-address">Your email address</label>
        <IssueList id="signin-address-problem" list={ask.addressProblem ? [ask.addressProblem] : undefined} />
        <input
          id="signin-address"
          type="email"
          name="address"
          autocomplete="email"
          required
          aria-invalid={ask.addressProblem ? 'true' : undefined}
          aria-describedby={ask.addressProblem ? 'signin-address-problem' : undefined}
        />
      </div>
      <div class="buttons">
        <button type="submit" class="primary">
          Email me a sign-in link
        </button>
      </div>
      <p class="muted">No email arriving, or no address on this board? An operator of this board can send you a link.</p>
    </form>
  );
}
