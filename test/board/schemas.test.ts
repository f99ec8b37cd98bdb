/**
 * Every schema workboard ships is valid JSON Schema 2020-12. The running code
 * compiles them without checking them against the meta-schema (that check is
 * most of the compile time at every start), so it is made here, once.
 */
import { readdirSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { SCHEMA_DIR, schemaText } from '../../src/board/schemas.js';
import { AJV_OPTIONS } from '../../src/board/validators.js';
import { TOOL_SCHEMA_DIR } from '../../src/service/schemas.js';
import { RESULT_SCHEMA_DIR } from '../support/result-schemas.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

describe('the shipped schemas', () => {
  for (const dir of [SCHEMA_DIR, TOOL_SCHEMA_DIR]) {
    const names = readdirSync(dir).filter((n) => n.endsWith('.json'));
    it(`${names.length} schemas in ${dir.split('/').slice(-2).join('/')} pass the meta-schema and compile strictly`, () => {
      expect(names.length).toBeGreaterThan(3);
      const ajv = new Ajv2020({ ...AJV_OPTIONS, validateSchema: true });
      addFormats(ajv);
      for (const n of names) {
        const schema = schemaText(dir, n.replace(/\.json$/, ''));
        expect(ajv.validateSchema(schema), `${n}: ${JSON.stringify(ajv.errors)}`).toBe(true);
        expect(() => ajv.compile(schema), n).not.toThrow();
      }
    });
  }

  it('the result schemas in schemas/results pass the meta-schema and compile strictly, each with the shapes they share', () => {
    const names = readdirSync(RESULT_SCHEMA_DIR).filter((n) => n.endsWith('.json'));
    expect(names.length).toBe(15);
    const ajv = new Ajv2020({ ...AJV_OPTIONS, validateSchema: true });
    addFormats(ajv);
    const schemas = names.map((n) => schemaText(RESULT_SCHEMA_DIR, n.replace(/\.json$/, '')));
    for (const [i, schema] of schemas.entries()) expect(ajv.validateSchema(schema), `${names[i]}: ${JSON.stringify(ajv.errors)}`).toBe(true);
    // Added together first: a result refers to shapes.json, which must be known before it compiles.
    for (const schema of schemas) ajv.addSchema(schema);
    for (const [i, schema] of schemas.entries()) expect(() => ajv.getSchema(String(schema.$id)), names[i]).not.toThrow();
  });

  it('the meta-schema check is real: a broken schema fails it', () => {
    const ajv = new Ajv2020({ ...AJV_OPTIONS, validateSchema: true });
    expect(ajv.validateSchema({ type: 'object', properties: { a: { type: 'no-such-type' } } })).toBe(false);
  });
});
