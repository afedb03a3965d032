// Everything shown in a report that came from an implementation under test is untrusted:
// it goes through `esc` (text and attribute values alike), so a deny reason holding
// <script> or <img onerror> is shown as text and never parsed as markup.
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);
}

/** A JSON value, pretty-printed and escaped, for a <pre>. */
export function escJson(value: unknown): string {
  return esc(typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

/** A word safe for a class or data attribute (anything else becomes '-'). */
export const token = (value: string): string => value.replace(/[^A-Za-z0-9_-]/g, '-');

/** A relative path as an href: each segment URL-encoded (a folder named after an implementation may hold anything). */
export const href = (path: string): string => path.split('/').map(encodeURIComponent).join('/');
