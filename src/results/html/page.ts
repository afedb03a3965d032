// The frame shared by the conformance report and the matrix page: one self-contained HTML
// file, no network. The Content-Security-Policy allows no source at all except our own
// inline style and the one inline script (by hash), so even a string that escaped escaping
// could neither run nor load anything.
import { createHash } from 'node:crypto';
import { esc } from './escape.js';

const STYLE = `
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--part:#6639ba;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1f2328}
main{max-width:1200px;margin:0 auto;padding:16px 20px 48px}h1{font-size:22px;margin:0}h2{font-size:17px;margin:28px 0 8px}
.banner{padding:16px 20px;border-radius:8px;color:#fff;margin-bottom:16px}.banner p{margin:4px 0 0;opacity:.95}
.v-conformant{background:var(--ok)}.v-nonconformant{background:var(--bad)}.v-incomplete{background:var(--warn)}.v-partial{background:var(--part)}
table{border-collapse:collapse;width:100%;margin:6px 0}th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--bg);font-weight:600}td.c{text-align:center;white-space:nowrap}
.s{display:inline-block;padding:0 6px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;white-space:nowrap}
.s-passed,.s-conformant{background:var(--ok)}.s-failed,.s-nonconformant{background:var(--bad)}.s-warning,.s-incomplete{background:var(--warn)}.s-partial{background:var(--part)}
.s-new-failure,.s-unexpected,.s-expired,.s-stale{background:var(--bad)}.s-fixed,.s-matched{background:var(--ok)}.s-still-failing{background:var(--warn)}
.s-not-applicable,.s-not-covered,.s-excluded,.s-new-check,.s-removed-check,.s-not-comparable,.s-not-run{background:#8c959f}.s-checked-elsewhere{background:#0969da}
.s-judged{background:var(--ok)}.s-partly-judged{background:var(--part)}.s-claim-validation{background:#0969da}.s-not-observable,.s-gap{background:var(--warn)}.s-informative,.s-not-claimed,.s-not-exercised{background:#8c959f}
.muted{color:var(--muted)}pre{background:var(--bg);border:1px solid var(--line);padding:8px;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-word;margin:4px 0}
details.check{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:4px 10px}details.check>summary{cursor:pointer;padding:2px 0}
details.check[open]{background:#fff}.filters{display:flex;gap:12px;flex-wrap:wrap;align-items:center;padding:8px;background:var(--bg);border:1px solid var(--line);border-radius:6px}
code{background:var(--bg);padding:0 3px;border-radius:3px}.t-recv{color:#0550ae}.t-send{color:#116329}.t-stderr,.t-exit{color:var(--warn)}
`;

/** A whole page: head with CSP, our style, the body, and our one script (optional). */
export function page(title: string, body: string, script = '', meta: Record<string, string> = {}): string {
  const hash = createHash('sha256').update(script).digest('base64');
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; script-src ${script ? `'sha256-${hash}'` : "'none'"}; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width,initial-scale=1">
${Object.entries(meta)
  .map(([k, v]) => `<meta name="${esc(k)}" content="${esc(v)}">\n`)
  .join('')}<title>${esc(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main>${script ? `<script>${script}</script>` : ''}</body></html>
`;
}

export const badge = (status: string, text = status): string =>
  `<span class="s s-${status.replace(/[^a-z-]/g, '')}">${esc(text)}</span>`;
