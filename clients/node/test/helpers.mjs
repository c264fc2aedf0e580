// Live tests run against the `qafila serve` named by QAFILA_BASE_URL with a test key in QAFILA_API_KEY
// (clients/run_tests.sh starts one). Without them they are skipped, unless QAFILA_REQUIRE_LIVE=1.
export const API_KEY = process.env.QAFILA_API_KEY;
export const BASE_URL = (process.env.QAFILA_BASE_URL || '').replace(/\/+$/, '');
export const LIVE = Boolean(API_KEY && BASE_URL);
if (!LIVE && process.env.QAFILA_REQUIRE_LIVE === '1') {
  throw new Error('QAFILA_API_KEY and QAFILA_BASE_URL must be set (QAFILA_REQUIRE_LIVE=1)');
}
export const SKIP_LIVE = LIVE ? false : 'no live service: set QAFILA_API_KEY and QAFILA_BASE_URL (clients/run_tests.sh does)';

let openapiPromise = null;
export function openapi() {
  openapiPromise ??= fetch(`${BASE_URL}/openapi.json`).then((r) => r.json());
  return openapiPromise;
}

/** The reason to skip when the service does not have an operation yet, else false. */
export async function missingRoute(method, path) {
  const doc = await openapi();
  return doc.paths?.[path]?.[method.toLowerCase()] ? false : `${method} ${path} is not in the service's /openapi.json yet (being built)`;
}

export const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' };
export const uid = () => Math.random().toString(36).slice(2, 12);

/** interface name -> field names, read from the .d.ts text */
export function parseInterfaces(text) {
  const out = {};
  for (const m of text.matchAll(/export interface (\w+) \{\n([\s\S]*?)\n\}/g)) {
    out[m[1]] = new Set([...m[2].matchAll(/^\s+'?([A-Za-z0-9_$[\]]+)'?\??:/gm)].map((f) => f[1]));
  }
  return out;
}

export function resolve(doc, node) {
  while (node && typeof node === 'object' && node.$ref) {
    node = node.$ref.slice(2).split('/').reduce((cur, part) => cur[part], doc);
  }
  return node;
}

export function propsAt(doc, method, path, where, segs) {
  const op = doc.paths?.[path]?.[method.toLowerCase()];
  if (!op) return null;
  if (where === 'query') {
    return new Set((op.parameters || []).map((p) => resolve(doc, p)).filter((p) => p.in === 'query').map((p) => p.name));
  }
  let schema;
  if (where === 'request') {
    schema = resolve(doc, resolve(doc, op.requestBody || {}).content?.['application/json']?.schema || {});
  } else {
    schema = resolve(doc, resolve(doc, op.responses?.[where] || {}).content?.['application/json']?.schema || {});
  }
  for (const seg of segs) {
    schema = resolve(doc, schema?.properties?.[seg] || {});
    const t = schema.type;
    if (t === 'array' || (Array.isArray(t) && t.includes('array'))) schema = resolve(doc, schema.items || {});
  }
  return new Set(Object.keys(schema?.properties || {}));
}

