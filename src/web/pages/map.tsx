/**
 * A map at full size: the drawing in a box that scrolls both ways, with zoom
 * buttons our script shows (without it, the map is simply full size and
 * scrolls). The drawing is the map image inside an SVG of our own, so the
 * current step gets a ring and an id (`#here`) the browser scrolls to: no
 * inline style, which the CSP forbids, and nothing drawn twice.
 */
import { Layout, type Frame } from './layout.js';

export interface MapPageProps {
  frame: Frame;
  title: string;
  /** Where the person came from, and its name. */
  back: { href: string; text: string };
  image: string;
  width: number;
  height: number;
  /** What the map shows, for those who cannot see it. */
  alt: string;
  /** flow-1: the other processes whose runs this one starts, each linked, with the step or end that starts them. */
  links?: { href: string; text: string; from: string }[];
  /** The box of the step the run is at now, in the map's own units. */
  here?: { x: number; y: number; width: number; height: number; title: string };
}

/** The ring drawn around the current step, this far outside its box. */
const RING = 8;

export function MapPage(p: MapPageProps) {
  return (
    <Layout frame={p.frame}>
      <p class="crumbs">
        <a href={p.back.href}>{p.back.text}</a> › map
      </p>
      <h1>{p.title}</h1>
      <div class="map-tools" data-map-tools hidden>
        <button type="button" data-zoom="out" aria-label="Zoom out">
          −
        </button>
        <button type="button" data-zoom="fit">
          Fit to the screen
        </button>
        <button type="button" data-zoom="in" aria-label="Zoom in">
          +
        </button>
        <button type="button" data-zoom="full">
          Full size
        </button>
      </div>
      {p.here ? (
        <p class="meta">
          The run is at <a href="#here">{p.here.title}</a>, ringed on the map.
        </p>
      ) : null}
      <div class="map-full" data-map tabindex={0} role="region" aria-label="The map; scroll to move around it">
        <svg xmlns="http://www.w3.org/2000/svg" width={p.width} height={p.height} viewBox={`0 0 ${p.width} ${p.height}`} role="img" aria-label={p.alt} data-width={p.width} data-height={p.height}>
          <image href={p.image} x={0} y={0} width={p.width} height={p.height} />
          {p.here ? <rect id="here" class="here-ring" x={p.here.x - RING} y={p.here.y - RING} width={p.here.width + 2 * RING} height={p.here.height + 2 * RING} rx={12} /> : null}
        </svg>
      </div>
      {p.links && p.links.length > 0 ? (
        <section aria-labelledby="map-links-h">
          <h2 id="map-links-h">Runs of other processes it starts</h2>
          <ul>
            {p.links.map((l) => (
              <li key={`${l.href} ${l.from}`}>
                <a href={l.href}>{l.text}</a> <span class="muted">{l.from}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <p>
        <a href={p.image}>Open the drawing alone</a> (an SVG image{p.links && p.links.length > 0 ? '; the steps that start runs of other processes are links in it' : ''})
      </p>
    </Layout>
  );
}
