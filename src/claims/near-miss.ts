// "Did you mean timeoutMs?": the known name a claim's unknown one was probably meant to be.
// A near miss is the same name ignoring case, `_` and `-` (timeout_ms, TimeoutMs), or one a
// couple of typing slips away (transport, lifecyle, tool-interceptions).

const normal = (s: string): string => s.toLowerCase().replace(/[_-]/g, '');

/** Edits (insert, delete, substitute, swap two neighbours) between a and b. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/** The candidate `word` was most likely meant to be, or undefined when none is close. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const w = normal(word);
  if (w.length === 0) return undefined;
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const n = normal(name);
    // A name cut short or run on (timeout → timeoutMs, profile → profiles) counts as two edits.
    const d = n === w ? 0 : Math.min(distance(w, n), n.startsWith(w) || w.startsWith(n) ? 2 : Infinity);
    const allowed = Math.min(n.length, w.length) >= 5 ? 2 : 1;
    if (d <= allowed && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}
