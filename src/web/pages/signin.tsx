/** Signing in with a single-use link: the page the link opens asks before the code is used, so a link scanner cannot burn it. */
import { Layout, type Frame } from './layout.js';
import { Notice } from './parts.js';

export function SignInPage({ frame, code, email }: { frame: Frame; code: string; email: string }) {
  return (
    <Layout frame={frame}>
      <h1>Sign in</h1>
      <p>This link signs you in as <strong>{email}</strong>. It works once.</p>
      <form method="post" action="/signin">
        <input type="hidden" name="code" value={code} />
        <button type="submit" class="primary">Sign in as {email}</button>
      </form>
    </Layout>
  );
}

export function SignInHelp({ frame, problem, status, next }: { frame: Frame; problem?: string; status?: 'out'; next?: string }) {
  return (
    <Layout frame={frame}>
      <h1>Sign in</h1>
      {problem ? <Notice kind="error" title="That did not sign you in">{<p>{problem}</p>}</Notice> : null}
      {status === 'out' ? <Notice kind="ok" title="You are signed out" /> : null}
      <p>
        People sign in with a link that works once, for 15 minutes. Ask an operator of this board for one; they make it with{' '}
        <code>workboard login-link you@example.com</code>.
      </p>
      {next ? <p>You asked for <code>{next}</code>: after you sign in with a link in this browser, you land there.</p> : null}
    </Layout>
  );
}
