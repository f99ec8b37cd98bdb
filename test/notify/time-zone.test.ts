/** WORK.md's notifications.timeZone: a zone Node knows is taken, anything else is refused with the reason, before any message uses it. */
import { describe, expect, it } from 'vitest';
import { manifestIssues } from '../../src/board/manifest.js';
import { schemaIssues } from '../../src/board/schemas.js';

describe('notifications.timeZone', () => {
  it('takes an IANA zone and refuses one Node does not know, naming the field', () => {
    expect(manifestIssues({ notifications: { timeZone: 'Europe/Berlin' } })).toEqual([]);
    expect(manifestIssues({ notifications: {} })).toEqual([]);
    expect(manifestIssues({ notifications: { timeZone: 'Europe/Atlantis' } })).toEqual([
      { path: 'notifications.timeZone', message: '"Europe/Atlantis" is not an IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)' },
    ]);
  });

  it('the schema refuses a value that is not shaped like a zone name', () => {
    const work = (timeZone: string) => ({ schema: 'workboard/v1', name: 'b', title: 'B', description: 'd', rev: 1, notifications: { timeZone } });
    expect(schemaIssues('work', work('America/New_York'))).toEqual([]);
    expect(schemaIssues('work', work('UTC+2 (Berlin)')).map((i) => i.path)).toEqual(['notifications.timeZone']);
  });
});
