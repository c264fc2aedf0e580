// The .d.ts files compile and describe the API (test/typecheck.ts), with tsc from devDependencies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = `${root}node_modules/typescript/bin/tsc`;

test('the type declarations compile and match their use', { skip: !existsSync(tsc) && 'typescript is not installed (npm install)' }, () => {
  try {
    execFileSync(process.execPath, [tsc, '-p', 'test/tsconfig.json'], { cwd: root, encoding: 'utf8' });
  } catch (e) {
    assert.fail(`tsc: ${e.stdout || ''}${e.stderr || ''}`);
  }
});
