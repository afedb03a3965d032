// A structural scan of JSON text, one line at a time, for readers that must find messages
// spread over several lines in linear time: it tracks brackets outside strings and nothing
// else (validity is left to a parser, run once a value has closed).
//
// JSON strings cannot hold a raw line break, so a line always starts outside any string:
// a string still open at the end of a line means the text so far is not JSON.

const QUOTE = 0x22,
  BACKSLASH = 0x5c;
const LBRACE = 0x7b,
  RBRACE = 0x7d,
  LBRACKET = 0x5b,
  RBRACKET = 0x5d;

export type ScanEnd =
  /** the whole line was scanned; the stack holds what is still open */
  | 'ok'
  /** a closing bracket matched nothing (empty stack) or the wrong kind of bracket; scanning stopped there */
  | 'unbalanced'
  /** the line ends inside a string */
  | 'open-string'
  /** onClose asked to stop */
  | 'stopped';

/**
 * Scan `line` from `from`, pushing '{' / '[' (as char codes) on `stack` and popping them on
 * their closing bracket. After each pop, `onClose(height, at)` is called with the stack
 * height after the pop and the index of the closing bracket; returning true stops the scan.
 */
export function scanLine(
  line: string,
  stack: number[],
  onClose?: (height: number, at: number) => boolean | void,
  from = 0,
): ScanEnd {
  const n = line.length;
  let i = from;
  while (i < n) {
    const c = line.charCodeAt(i);
    if (c === QUOTE) {
      // skip the string: to the next quote that is not escaped
      i++;
      for (;;) {
        if (i >= n) return 'open-string';
        const d = line.charCodeAt(i);
        if (d === QUOTE) break;
        i += d === BACKSLASH ? 2 : 1;
      }
    } else if (c === LBRACE || c === LBRACKET) {
      stack.push(c);
    } else if (c === RBRACE || c === RBRACKET) {
      const open = stack.pop();
      if (open !== (c === RBRACE ? LBRACE : LBRACKET)) return 'unbalanced';
      if (onClose?.(stack.length, i)) return 'stopped';
    }
    i++;
  }
  return 'ok';
}

/** Only JSON whitespace (space, tab, CR; a line holds no LF) from `from` to the end? */
export function onlyWhitespaceAfter(line: string, from: number): boolean {
  for (let i = from; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
  }
  return true;
}
