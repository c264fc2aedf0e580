import { describe, expect, it } from 'vitest';
import { readCookie } from './csrf';

describe('readCookie', () => {
  it('finds the JS-readable CSRF cookie', () => {
    expect(readCookie('qafila_csrf', 'a=1; qafila_csrf=abc%3D; b=2')).toBe('abc=');
    expect(readCookie('qafila_csrf', 'xqafila_csrf=1')).toBeNull();
    expect(readCookie('qafila_csrf', '')).toBeNull();
  });
});
