// The matrix page of a run (reports/index.html): one row per implementation and target, one
// column per profile; each cell the worst status of that profile's checks with their counts,
// linked to those checks in the claim's own report. A cell tells apart a profile that does
// not apply to the target ("n/a"), one the claim does not claim, and checks that did not run
// (left out by --grep, a run stopped early, or in a shard missing from a merge); a partial
// claim says how many of its checks ran. Reports of earlier runs still in
// the folder are listed apart, never as part of this run. Each implementation names the
// snapshot it was judged by: claims of different snapshots share one page, told apart.
import { applicableChecks, CAPABILITY_PROFILES } from '../../checks/catalogue.js';
import type { CheckResult, CheckStatus, ClaimResults, TargetKey, Verdict } from '../model.js';
import { coverageText, ranToResult, statusWord, targetKey, targetLabel } from '../model.js';
import { snapshotIdentity } from '../snapshot.js';
import { esc, href } from './escape.js';
import { badge, page } from './page.js';

const SEVERITY: CheckStatus[] = ['failed', 'incomplete', 'warning', 'passed', 'not-applicable'];
const PROFILES = ['base', 'tool-interception', 'lifecycle-observation', 'stdio', 'http'] as const;

/** A report of an earlier run found in the reports folder: listed, not part of this run. */
export interface EarlierReport {
  name: string;
  version: string;
  verdict: string;
  generatedAt: string;
  /** Its folder, relative to the matrix page. */
  dir: string;
}

export interface MatrixContext {
  /** Playwright's report of this run, relative to the matrix page. */
  playwrightHref?: string;
  earlier?: readonly EarlierReport[];
}

function profileCell(r: ClaimResults, t: TargetKey, profile: string, checks: CheckResult[], link: string): string {
  const planned = applicableChecks(t.role, t.transport, t.lifecycle, r.claim.profiles)
    .filter((c) => c.profile === profile)
    .map((c) => c.id);
  const mine = checks.filter((c) => c.profile === profile);
  if (planned.length === 0 && mine.length === 0) {
    const claimable = applicableChecks(t.role, t.transport, t.lifecycle, CAPABILITY_PROFILES).some(
      (c) => c.profile === profile,
    );
    return claimable
      ? '<td class="c muted" data-cell="not-claimed">not claimed</td>'
      : '<td class="c muted" data-cell="n-a">n/a</td>';
  }
  const ran = new Set(mine.filter(ranToResult).map((c) => c.id));
  const notRun = planned.filter((id) => !ran.has(id)).length;
  const worst = SEVERITY.find((s) => mine.some((c) => c.status === s));
  // Green only when every planned check ran: a cell of a missing shard, a --grep run or a
  // run that stopped is not a pass.
  const shown =
    worst === undefined
      ? badge('excluded', 'not run')
      : notRun > 0 && !['failed', 'incomplete', 'warning'].includes(worst)
        ? badge('incomplete', 'not all run')
        : badge(worst);
  const counts = SEVERITY.map((s) => [s, mine.filter((c) => c.status === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${statusWord(s)}`);
  if (notRun) counts.push(`${notRun} not run`);
  // A failing cell names its checks, so a nightly reader sees what broke without opening the report.
  const ids =
    worst === 'failed' || worst === 'warning'
      ? [...new Set(mine.filter((c) => c.status === worst).map((c) => c.id))]
      : [];
  const target = `${link}?profile=${encodeURIComponent(profile)}&transport=${encodeURIComponent(t.transport)}#checks`;
  return `<td class="c" data-cell="${esc(worst ?? 'not-run')}"><a href="${esc(target)}">${shown}</a><div class="muted">${esc(counts.join(' · '))}</div>${ids.map((id) => `<div class="muted"><code>${esc(id)}</code></div>`).join('')}</td>`;
}

/** `reportDirs[i]` is the folder of `results[i]`, relative to the matrix page. */
export function matrixPage(
  results: readonly ClaimResults[],
  reportDirs: readonly string[],
  generatedAt: string,
  context: MatrixContext = {},
): string {
  const rows = results
    .flatMap((r, i) => {
      const link = `${href(reportDirs[i]!)}/index.html`;
      const targets = r.targets.length ? r.targets : [undefined];
      return targets.map((t, j) => {
        const checks = t ? r.checks.filter((c) => targetKey(c) === targetKey(t)) : [];
        const cells = PROFILES.map((p) =>
          t ? profileCell(r, t, p, checks, link) : '<td class="c muted" data-cell="n-a">—</td>',
        ).join('');
        const name =
          j === 0
            ? `<td rowspan="${targets.length}"><a href="${esc(link)}">${esc(r.claim.implementation.name)} ${esc(r.claim.implementation.version)}</a><br>${badge(r.verdict)}${r.coverage && r.coverage.ran < r.coverage.needed ? `<div class="muted coverage">${esc(coverageText({ ran: r.coverage.ran, needed: r.coverage.needed }, ' the claim needs'))}</div>` : ''}</td>`
            : '';
        const snap = r.claim.snapshot;
        const snapshot =
          j === 0
            ? `<td rowspan="${targets.length}" data-snapshot="${esc(snap.id)}" title="${esc(snapshotIdentity(snap))}"><code>${esc(snap.id)}</code>${snap.requested !== snap.id ? `<div class="muted">the claim said ${esc(snap.requested)}</div>` : ''}</td>`
            : '';
        const reason = t ? t.reason : r.reason;
        return `<tr>${name}${snapshot}<td>${t ? esc(targetLabel(t)) : '—'}</td><td class="c">${badge(t?.verdict ?? r.verdict)}${reason ? `<div class="muted reason">${esc(reason)}</div>` : ''}</td>${cells}</tr>`;
      });
    })
    .join('\n');
  const count = (v: Verdict): number => results.filter((r) => r.verdict === v).length;
  const overall = results.every((r) => r.verdict === 'conformant')
    ? 'conformant'
    : results.some((r) => r.verdict === 'nonconformant')
      ? 'nonconformant'
      : results.some((r) => r.verdict === 'incomplete')
        ? 'incomplete'
        : 'partial';
  const pw = context.playwrightHref
    ? `<p><a id="link-playwright" href="${esc(href(context.playwrightHref))}">Playwright report of this run</a></p>`
    : '';
  const earlier = context.earlier?.length
    ? `<h2 id="earlier">Reports of earlier runs in this folder</h2><p class="muted">Not part of this run: each as its own run left it.</p><table><thead><tr><th>Implementation</th><th>Verdict</th><th>Generated</th></tr></thead><tbody>${context.earlier
        .map(
          (e) =>
            `<tr><td><a href="${esc(`${href(e.dir)}/index.html`)}">${esc(e.name)} ${esc(e.version)}</a></td><td>${badge(e.verdict)}</td><td>${esc(e.generatedAt)}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '';
  // Every snapshot of the page by commit, once: a reader compares verdicts of one snapshot only.
  const snapshots = [...new Map(results.map((r) => [r.claim.snapshot.id, r.claim.snapshot])).values()];
  const judged = `<p id="snapshots">${snapshots.length === 1 ? 'Judged by' : `Judged by ${snapshots.length} snapshots:`} ${snapshots.map((x) => esc(snapshotIdentity(x))).join('; ')}</p>`;
  const body = `<section class="banner v-${overall}"><h1>AHP conformance: ${results.length} implementation${results.length === 1 ? '' : 's'}</h1>
<p>${esc(count('conformant'))} conformant · ${esc(count('nonconformant'))} nonconformant · ${esc(count('incomplete'))} incomplete${count('partial') ? ` · ${esc(count('partial'))} partial (not every check the claim needs ran)` : ''} · ${esc(generatedAt)}</p>${judged}</section>
${pw}<table class="matrix"><thead><tr><th>Implementation</th><th>Snapshot</th><th>Target</th><th>Verdict</th>${PROFILES.map((p) => `<th>${esc(p)}</th>`).join('')}</tr></thead><tbody>
${rows}
</tbody></table>
<p class="muted">Each cell: the worst status of the profile's checks for the target, with counts; "not all run" where some of its checks did not run (left out by --grep, in a shard missing from the merge, or not run because the run stopped); "not claimed" for a capability profile the claim does not list; "n/a" where the profile has no check for the target.</p>
${earlier}`;
  return page('AHP conformance matrix', body);
}
