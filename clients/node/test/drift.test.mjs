// The library's generated types (types/models.d.ts) against the live service's /openapi.json: a field
// the service adds to (or drops from) a response, a request body or a list's query parameters fails
// here, until `python clients/codegen/generate.py --openapi <url>` is run and the result committed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERROR_FIELDS } from 'qafila';
import { SKIP_LIVE, openapi, parseInterfaces, propsAt, resolve } from './helpers.mjs';

const here = new URL('.', import.meta.url);
const SOURCES = JSON.parse(readFileSync(new URL('../lib/schema-sources.json', here), 'utf8')).sources;

const DECLARED = parseInterfaces(readFileSync(new URL('../types/models.d.ts', here), 'utf8'));

test('every generated interface is in the sources list', () => {
  assert.deepEqual(Object.keys(DECLARED).sort(), Object.keys(SOURCES).sort());
});

for (const name of Object.keys(SOURCES).sort()) {
  test(`${name} matches /openapi.json`, { skip: SKIP_LIVE }, async (t) => {
    const doc = await openapi();
    const found = SOURCES[name].map((src) => propsAt(doc, ...src));
    const present = found.filter(Boolean);
    if (present.length === 0) {
      t.skip(`${name}: none of its operations is in /openapi.json yet (${SOURCES[name].map((s) => `${s[0]} ${s[1]}`).join(', ')})`);
      return;
    }
    const gone = SOURCES[name].filter((_, i) => !found[i]);
    assert.deepEqual(gone, [], `${name}: operations gone from the service`);
    const expected = new Set(present.flatMap((s) => [...s]));
    const have = DECLARED[name];
    assert.deepEqual([...expected].filter((f) => !have.has(f)), [], `${name}: the service has fields the library lacks`);
    assert.deepEqual([...have].filter((f) => !expected.has(f)), [], `${name}: the library has fields the service dropped`);
  });
}

test('the errors carry every field of the service error object', { skip: SKIP_LIVE }, async () => {
  const doc = await openapi();
  const err = resolve(doc, resolve(doc, doc.components.schemas.Error).properties.error);
  assert.deepEqual(Object.keys(err.properties).filter((f) => !ERROR_FIELDS.includes(f)), []);
});

test('the drift check notices an added field', () => {
  const fields = [...DECLARED.PaymentIntent];
  const doc = { paths: { '/v1/payments/{id}': { get: { responses: { 200: { content: { 'application/json': {
    schema: { type: 'object', properties: Object.fromEntries(fields.map((f) => [f, {}])) } } } } } } } } };
  doc.paths['/v1/payments/{id}'].get.responses[200].content['application/json'].schema.properties.surcharge = { type: 'integer' };
  const got = propsAt(doc, 'GET', '/v1/payments/{id}', '200', []);
  assert.deepEqual([...got].filter((f) => !DECLARED.PaymentIntent.has(f)), ['surcharge']);
});
