/**
 * The cookie session's CSRF token: otpVerify/twoFactorVerify answer it and the server also sets
 * it in the JS-readable `qafila_csrf` cookie, read again after a reload. Kept in memory only,
 * never in web storage.
 */
let current: string | null = null;

export function readCookie(name: string, cookies: string = typeof document === 'undefined' ? '' : document.cookie): string | null {
  for (const part of cookies.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return null;
}

export function setCsrfToken(token: string | null | undefined): void {
  current = token ?? null;
}

export function csrfToken(): string | null {
  return readCookie('qafila_csrf') ?? current;
}
