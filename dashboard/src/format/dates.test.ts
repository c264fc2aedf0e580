import { describe, expect, it } from 'vitest';
import { endOfLocalDay, formatDate, formatDateTime, formatDay, localDay, startOfLocalDay, zoneOffsetMinutes } from './dates';

describe('zones', () => {
  it('knows the offsets of the markets', () => {
    expect(zoneOffsetMinutes(new Date('2026-01-05T09:00:00Z'), 'Asia/Kuwait')).toBe(180);
    expect(zoneOffsetMinutes(new Date('2026-01-05T09:00:00Z'), 'Asia/Dubai')).toBe(240);
    expect(zoneOffsetMinutes(new Date('2026-01-05T09:00:00Z'), 'Europe/Istanbul')).toBe(180);
  });
  it('gives the local day bounds in UTC', () => {
    expect(startOfLocalDay('2026-03-01', 'Asia/Kuwait')).toBe('2026-02-28T21:00:00.000Z');
    expect(endOfLocalDay('2026-03-01', 'Asia/Kuwait')).toBe('2026-03-01T20:59:59.999Z');
    expect(startOfLocalDay('2026-01-05', 'Asia/Dubai')).toBe('2026-01-04T20:00:00.000Z');
    // Cairo keeps summer time (UTC+3) from the last Friday of April.
    expect(startOfLocalDay('2026-07-01', 'Africa/Cairo')).toBe('2026-06-30T21:00:00.000Z');
    expect(startOfLocalDay('2026-01-01', 'Africa/Cairo')).toBe('2025-12-31T22:00:00.000Z');
  });
  it('takes the day in the merchant zone, not the browser one', () => {
    expect(localDay('2026-01-05T22:30:00.000Z', 'Asia/Kuwait')).toBe('2026-01-06');
    expect(localDay('2026-01-05T20:30:00.000Z', 'Asia/Kuwait')).toBe('2026-01-05');
  });
});

describe('formatting', () => {
  it('writes dates in the zone and the language', () => {
    expect(formatDate('2026-01-05T22:30:00.000Z', 'Asia/Kuwait', { lang: 'en' })).toEqual({ text: 'Jan 6, 2026', hijri: null });
    expect(formatDateTime('2026-01-05T22:30:00.000Z', 'Asia/Kuwait', { lang: 'en' }).text).toBe('Jan 6, 2026, 01:30 AM');
    expect(formatDateTime('2026-01-05T22:30:00.000Z', 'Europe/Istanbul', { lang: 'tr' }).text).toBe('6 Oca 2026 01:30');
  });
  it('puts the Umm al-Qura date beside each Arabic date', () => {
    const d = formatDate('2026-01-05T22:30:00.000Z', 'Asia/Riyadh', { lang: 'ar' });
    // 6 January 2026 is 17 Rajab 1447 in the Umm al-Qura calendar.
    expect(d.hijri).toContain('رجب');
    expect(d.hijri).toContain('١٤٤٧');
    expect(d.hijri).toContain('١٧');
    expect(d.text).not.toMatch(/[0-9]/);
    const latn = formatDay('2026-01-06', { lang: 'ar', digits: 'latn' });
    expect(latn.hijri).toContain('1447');
    expect(latn.hijri).toContain('17');
  });
});
