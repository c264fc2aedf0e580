/** The layout mirrors in Arabic only if every style is logical: no physical left/right utility anywhere in src. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const PHYSICAL = /(?<![\w-])(?:-?(?:ml|mr|pl|pr|left|right|border-l|border-r|rounded-l|rounded-r|rounded-tl|rounded-tr|rounded-bl|rounded-br|scroll-ml|scroll-mr|scroll-pl|scroll-pr)-[\w[\]./%-]+|text-left|text-right|float-left|float-right|clear-left|clear-right|border-l|border-r)(?![\w-])/g;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'gql' ? [] : files(path);
    return /\.(tsx|ts|css)$/.test(name) && !name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('logical CSS only', () => {
  it('recognises physical utilities', () => {
    expect('"ms-2 ml-2 pe-1 pr-4 text-left start-0 right-0 md:mr-auto"'.match(PHYSICAL)).toEqual(['ml-2', 'pr-4', 'text-left', 'right-0', 'mr-auto']);
  });
  it('uses no ml/mr/pl/pr/left/right/text-left/text-right utility', () => {
    const found: string[] = [];
    for (const file of files(join(__dirname, '..'))) {
      const text = readFileSync(file, 'utf8');
      // Every string literal (class names live in className="…", `…` and shared constants).
      for (const m of text.matchAll(/'[^'\n]*'|"[^"\n]*"|`[^`]*`/g)) {
        for (const hit of m[0].matchAll(PHYSICAL)) found.push(`${file}: ${hit[0]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
