import { describe, expect, it } from 'vitest';
import { chooseLang, direction, localeTag } from './locale';

describe('chooseLang', () => {
  it('prefers ?lang, then the saved language, then the browser', () => {
    expect(chooseLang('tr', 'en', ['ar'])).toBe('tr');
    expect(chooseLang(null, 'en', ['ar'])).toBe('en');
    expect(chooseLang('xx', null, ['fr-FR', 'tr-TR', 'en'])).toBe('tr');
    expect(chooseLang(null, null, ['fr'])).toBe('ar');
  });
  it('tags digits and direction', () => {
    expect(localeTag({ lang: 'ar' })).toBe('ar-u-nu-arab');
    expect(localeTag({ lang: 'ar', digits: 'latn' })).toBe('ar-u-nu-latn');
    expect(localeTag({ lang: 'tr' })).toBe('tr-u-nu-latn');
    expect(localeTag({ lang: 'en', digits: 'arab' })).toBe('en-u-nu-latn');
    expect(direction('ar')).toBe('rtl');
    expect(direction('en')).toBe('ltr');
  });
});
