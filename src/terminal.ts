// Text from the implementation under test (its name and version, check messages, launch
// errors, captured messages) reaches the terminal only through these: an escape sequence
// could clear the screen or rewrite a line, a line break could forge a verdict line, and
// bidi controls could make a line read differently from what it holds. Each such character
// is shown escaped instead (`\x1b`, `\n`, `\u202e`); everything else is left as it is.

/**
 * C0 controls (tab, CR and LF included), DEL, C1 controls, the line and paragraph
 * separators, bidi controls (marks, embeddings, overrides, isolates) and lone surrogates.
 */
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const escaped = (c: string): string => {
  const code = c.charCodeAt(0);
  return (
    NAMED[c] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
  );
};

/** Any string as (part of) one terminal line: nothing in it can move the cursor, end the line or reorder it. */
export function terminalLine(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/** The same as {@link UNSAFE} but for line feeds and tabs: multi-line output, each line safe. */
const UNSAFE_IN_LINES =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Lines of text for the terminal (Playwright's progress output, which quotes check
 * messages and transcripts): line feeds and tabs stay, every other character
 * {@link terminalLine} escapes is shown escaped, carriage returns and escape sequences included.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE_IN_LINES, escaped);
}

/** Besides what JSON already escapes: C1 controls, line separators, bidi controls, lone surrogates. */
const UNSAFE_IN_JSON =
  /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * JSON for the terminal: the same value, with every character {@link terminalLine} escapes
 * written as a JSON `\u` escape (JSON.stringify already escapes C0 controls), so the output
 * parses to the same data and shows nothing raw.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    UNSAFE_IN_JSON,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
