/** The frame of every page: skip link, header with navigation and sign-out, the main content, our one stylesheet and script. */
import type { ComponentChildren } from 'preact';
import { WordsProvider, type PageWords } from './words.js';

export interface Me {
  email: string;
  name?: string;
  operator: boolean;
  csrf: string;
}

export interface Frame {
  title: string;
  me: Me | null;
  /** A hash of the assets, so their URLs change when they do and may be cached for long. */
  assetVersion: string;
  /** What live updates this page listens to: `work`, or `run:<id>`. */
  live?: string;
  /** How long the board's change log was when the page was rendered, so live updates start from there. */
  liveFrom?: number;
  current?: 'work' | 'runs' | 'processes' | 'insights' | 'operators';
  /** The board's people and the moment of rendering, for names and times in words. */
  words?: PageWords;
}

function Nav({ me, current }: { me: Me; current: Frame['current'] }) {
  const link = (href: string, key: Frame['current'], text: string) => (
    <li>
      <a href={href} aria-current={current === key ? 'page' : undefined}>
        {text}
      </a>
    </li>
  );
  return (
    <nav aria-label="Main">
      <ul>
        {link('/work', 'work', 'My work')}
        {link('/runs', 'runs', 'Runs')}
        {link('/processes', 'processes', 'Processes')}
        {link('/insights', 'insights', 'Insights')}
        {me.operator ? link('/operators', 'operators', 'Operators') : null}
      </ul>
    </nav>
  );
}

export function Layout({ frame, children }: { frame: Frame; children: ComponentChildren }) {
  const { me } = frame;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${frame.title} · workboard`}</title>
        <link rel="stylesheet" href={`/assets/app.css?v=${frame.assetVersion}`} />
        <script src={`/assets/app.js?v=${frame.assetVersion}`} defer></script>
      </head>
      <body data-live={frame.live} data-live-from={frame.liveFrom}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href="/">
            workboard
          </a>
          {me ? <Nav me={me} current={frame.current} /> : null}
          {me ? (
            <form method="post" action="/signout" class="signout">
              <input type="hidden" name="csrf" value={me.csrf} />
              <span class="who">{me.name ?? me.email}</span> <button type="submit">Sign out</button>
            </form>
          ) : null}
        </header>
        <div id="live" class="live" role="status" aria-live="polite" hidden></div>
        <main id="main" tabindex={-1}>
          <WordsProvider words={frame.words}>{children}</WordsProvider>
        </main>
      </body>
    </html>
  );
}
