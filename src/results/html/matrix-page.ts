// The matrix page of a run over several claims (reports/index.html): one row per
// implementation and target, one column per profile, each cell the worst status of that
// profile's checks; every row links to the claim's own report.
import type { CheckStatus, ClaimResults } from '../model.js';
import { targetKey, targetLabel } from '../model.js';
import { esc } from './escape.js';
import { badge, page } from './page.js';

const SEVERITY: CheckStatus[] = ['failed', 'incomplete', 'warning', 'passed', 'not-applicable', 'skipped'];
const PROFILES = ['base', 'tool-interception', 'lifecycle-observation', 'stdio', 'http'];

/** `reportDirs[i]` is the folder of `results[i]`, relative to the matrix page. */
export function matrixPage(
  results: readonly ClaimResults[],
  reportDirs: readonly string[],
  generatedAt: string,
): string {
  const rows = results
    .flatMap((r, i) => {
      const link = `${reportDirs[i]!.split('/').map(encodeURIComponent).join('/')}/index.html`;
      const targets = r.targets.length ? r.targets : [undefined];
      return targets.map((t, j) => {
        const checks = t ? r.checks.filter((c) => targetKey(c) === targetKey(t)) : [];
        const cells = PROFILES.map((p) => {
          const mine = checks.filter((c) => c.profile === p);
          if (mine.length === 0) return '<td class="c muted">—</td>';
          const worst = SEVERITY.find((s) => mine.some((c) => c.status === s))!;
          // A failing cell names its checks, so a nightly reader sees what broke without opening the report.
          const ids =
            worst === 'failed' || worst === 'warning'
              ? [...new Set(mine.filter((c) => c.status === worst).map((c) => c.id))]
              : [];
          return `<td class="c">${badge(worst)}${ids.map((id) => `<div class="muted"><code>${esc(id)}</code></div>`).join('')}</td>`;
        }).join('');
        const name =
          j === 0
            ? `<td rowspan="${targets.length}"><a href="${esc(link)}">${esc(r.claim.implementation.name)} ${esc(r.claim.implementation.version)}</a><br>${badge(r.verdict)}</td>`
            : '';
        return `<tr>${name}<td>${t ? esc(targetLabel(t)) : '—'}</td><td class="c">${badge(t?.verdict ?? r.verdict)}</td>${cells}</tr>`;
      });
    })
    .join('\n');
  const body = `<section class="banner v-${results.every((r) => r.verdict === 'conformant') ? 'conformant' : results.some((r) => r.verdict === 'nonconformant') ? 'nonconformant' : 'incomplete'}"><h1>AHP conformance: ${results.length} implementation${results.length === 1 ? '' : 's'}</h1>
<p>${esc(results.filter((r) => r.verdict === 'conformant').length)} conformant · ${esc(results.filter((r) => r.verdict === 'nonconformant').length)} nonconformant · ${esc(results.filter((r) => r.verdict === 'incomplete').length)} incomplete · ${esc(generatedAt)}</p></section>
<table class="matrix"><thead><tr><th>Implementation</th><th>Target</th><th>Verdict</th>${PROFILES.map((p) => `<th>${esc(p)}</th>`).join('')}</tr></thead><tbody>
${rows}
</tbody></table>`;
  return page('AHP conformance matrix', body);
}
