/**
 * Do our result schemas judge as the upstream ones do? Given real answers,
 * each is judged by both, then broken one way at a time at every place its
 * shape has (each key dropped, an unknown key added, each value swapped for
 * one of another JSON type, or for null) and judged by both again. Each
 * place is broken once per tool and kind of break (array items count as one
 * place), which keeps the work to the shapes seen rather than the answers.
 */
export type Judge = (tool: string, res: unknown) => boolean;

export interface Verdicts {
  tool: string;
  /** Where, as a JSON pointer with array indices as `*`, and how it was broken. */
  at: string;
  upstream: boolean;
  ours: boolean;
}

export interface Agreement {
  /** Real answers judged. */
  answers: number;
  /** Real answers either schema refused. */
  refused: Verdicts[];
  /** Broken answers judged. */
  broken: number;
  /** Broken answers upstream refused and ours accepted. */
  looser: Verdicts[];
  /** Broken answers ours refused and upstream accepted. */
  stricter: Verdicts[];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * A value of another JSON type than `v`. A null becomes a number, not a
 * string: where a time may be null, any string is a time to upstream and
 * only RFC 3339 text is to ours, a difference the format makes on purpose.
 */
function otherType(v: Json): Json {
  if (typeof v === 'string') return 7;
  if (typeof v === 'number') return 'seven';
  if (typeof v === 'boolean') return 'true';
  if (v === null) return 7;
  return Array.isArray(v) ? {} : [];
}

export function agreement(answers: { tool: string; res: unknown }[], upstream: Judge, ours: Judge): Agreement {
  const out: Agreement = { answers: 0, refused: [], broken: 0, looser: [], stricter: [] };
  const done = new Set<string>();
  for (const { tool, res } of answers) {
    out.answers++;
    const root = structuredClone(res) as Json;
    const judge = (at: string) => {
      const v: Verdicts = { tool, at, upstream: upstream(tool, root), ours: ours(tool, root) };
      return v;
    };
    const real = judge('');
    if (!real.upstream || !real.ours) {
      out.refused.push(real);
      continue;
    }
    const tryBreak = (at: string, kind: string, breakIt: () => () => void) => {
      const key = `${tool}|${at}|${kind}`;
      if (done.has(key)) return;
      done.add(key);
      const restore = breakIt();
      const v = judge(`${at} ${kind}`);
      restore();
      out.broken++;
      if (!v.upstream && v.ours) out.looser.push(v);
      if (v.upstream && !v.ours) out.stricter.push(v);
    };
    const walk = (node: Json, at: string) => {
      if (node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        node.forEach((item, i) => {
          tryBreak(`${at}/*`, 'other type', () => {
            node[i] = otherType(item);
            return () => (node[i] = item);
          });
          walk(item, `${at}/*`);
        });
        return;
      }
      tryBreak(at, 'unknown key added', () => {
        node.zzUnknownKey = 1;
        return () => delete node.zzUnknownKey;
      });
      for (const [k, v] of Object.entries(node)) {
        const here = `${at}/${k}`;
        tryBreak(here, 'dropped', () => {
          delete node[k];
          return () => (node[k] = v);
        });
        tryBreak(here, 'other type', () => {
          node[k] = otherType(v);
          return () => (node[k] = v);
        });
        if (v !== null)
          tryBreak(here, 'null', () => {
            node[k] = null;
            return () => (node[k] = v);
          });
        walk(v, here);
      }
    };
    walk(root, '');
  }
  return out;
}

/**
 * Where our result schemas are stricter than the upstream ones on purpose:
 * what the tool contracts say and upstream's schemas leave open. Each entry
 * is `tool place way-of-breaking`; a stricter verdict not listed here fails.
 */
export const DELIBERATELY_STRICTER: readonly string[] = [
  // upload's contract takes its size limit from describe's maxUploadBytes, and we always answer it.
  'describe /data/maxUploadBytes dropped',
];
