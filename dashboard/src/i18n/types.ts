/** Each domain's messages.ts exports `{en, ar, tr}`: `en` defines the ids, the others must have every one. */
export type Catalog<T extends Record<string, string>> = { en: T; ar: Record<keyof T, string>; tr: Record<keyof T, string> };

export function catalog<T extends Record<string, string>>(c: { en: T; ar: Record<keyof T, string>; tr: Record<keyof T, string> }): Catalog<T> {
  return c;
}
