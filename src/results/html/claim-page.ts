// The conformance report of one claim (reports/<implementation>/index.html): verdict
// banner, what was claimed, verdict per target, the requirement matrix (every draft
// requirement, also those no check covers, with the ledger's word on each), the traceability
// ledger (what the certificate proves of each requirement and profile sentence, and what not),
// and every check with its expectation, the evidence and the wire transcript, with filters. Rendered from results.json, plus what
// the run was judged against (a baseline, expected failures) when it was.
import { applicableChecks, checkSpec, CHECKS } from '../../checks/catalogue.js';
import { REQUIREMENTS } from '../../checks/requirements.js';
import {
  LEDGER_STATUSES,
  UNJUDGED_WORDS,
  unjudgedKind,
  type LedgerEntry,
  type LedgerStatus,
} from '../../checks/ledger.js';
import { checkKey, snapshotChangeLine, type CheckChange } from '../baseline.js';
import { snapshotOf } from '../../protocol/snapshots.js';
import { knownSnapshot, snapshotIdentity, UNKNOWN_SNAPSHOT, type SnapshotSummary } from '../snapshot.js';
import type { ExpectedFailure, ExpectedOutcome } from '../expected-failures.js';
import {
  coverageText,
  reasonIsCoverage,
  statusWord,
  targetName,
  targetKey,
  targetLabel,
  type CheckResult,
  type CheckStatus,
  type ClaimResults,
  type TargetKey,
  type TranscriptLine,
} from '../model.js';
import { checkGrep } from '../check-title.js';
import { esc, escJson, href, token } from './escape.js';
import { badge, page } from './page.js';
import { findingsSection } from './claim-findings.js';

/** Worst first: what a matrix cell shows when several checks cover one requirement. */
const SEVERITY: CheckStatus[] = ['failed', 'incomplete', 'warning', 'passed', 'not-applicable', 'not-run'];

/** A word quoted for a POSIX shell. */
const shellWord = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The command that reruns one check of one target, from the folder the run started in
 * (the claim path is recorded relative to it), into the same reports folder: a rerun is a
 * partial run, so it never replaces this report (see docs/reports.md).
 */
export function rerunCommand(r: ClaimResults, c: CheckResult, reportsArg?: string): string {
  const grep = checkGrep([c.id], targetName(r.claim.implementation.name, c));
  return `ahp-conformance run ${shellWord(r.claim.file)} --grep ${shellWord(grep)}${reportsArg ? ` --reports ${shellWord(reportsArg)}` : ''}`;
}

/** Where a claim report links to, as hrefs relative to its folder; and the reports folder its rerun commands name. */
export interface ReportContext {
  /** The run's matrix page (reports/index.html). */
  matrixHref?: string;
  /** Playwright's HTML report of the run. */
  playwrightHref?: string;
  /** `--reports` of the rerun commands, relative to the folder the run started in. */
  reportsArg?: string;
  /** A partial run written beside a full report: the full report's page. */
  fullReportHref?: string;
  /** The claim folder gets an attestation; `signedBy`: the key id that signs it (run --sign-key), for readers to compare. */
  attestation?: { signedBy?: string };
}

/** The bytes tested (hashed before launch) and who signs the attestation over them. */
function implementationRows(
  files: ClaimResults['claim']['implementationFiles'],
  attestation: ReportContext['attestation'],
): string {
  const list = (files ?? [])
    .map(
      (f) =>
        `<li><code>${esc(f.name)}</code> <span class="muted">${esc(f.kind)}${f.sha256 ? ` · sha256 <code>${esc(f.sha256)}</code>` : ` · not hashed: ${esc(f.notHashed ?? '')}`}</span></li>`,
    )
    .join('');
  const signed = attestation?.signedBy;
  const row = !attestation
    ? ''
    : `<tr><th>Attestation</th><td id="attestation">${
        signed
          ? `signed by key <code>${esc(signed)}</code> (<code>ahp-conformance verify --key &lt;public key&gt;</code> checks it)`
          : 'unsigned (the run had no --sign-key): the folder proves only its own consistency'
      }</td></tr>`;
  return `${list ? `<tr><th>Implementation files</th><td><ul class="files">${list}</ul></td></tr>` : ''}${row}`;
}

function cell(checks: CheckResult[]): string {
  if (checks.length === 0) return badge('not-covered', 'not covered');
  const worst = SEVERITY.find((s) => checks.some((c) => c.status === s)) ?? 'not-run';
  const ids = [...new Set(checks.map((c) => c.id))].join(', ');
  return `<span title="${esc(ids)}">${badge(worst, statusWord(worst))}</span>`;
}

/**
 * Where the claim's snapshot publishes no requirement texts of its own, whose are shown
 * (src/protocol/snapshots.ts `borrowed`): marked, never presented as the snapshot's.
 */
export function borrowedRequirements(s: SnapshotSummary): { from: string; note: string } | undefined {
  const id = knownSnapshot(s);
  const from = id ? snapshotOf(id).borrowed.requirements : undefined;
  return from ? { from, note: `from ${from} (${id} publishes none)` } : undefined;
}

function borrowedNote(s: SnapshotSummary): string {
  const b = borrowedRequirements(s);
  return b
    ? `<p id="requirements-borrowed"><b>Requirement texts ${esc(b.note)}:</b> the texts below are ${esc(b.from)}'s; the checks judge by ${esc(s.id)}'s rules.</p>`
    : '';
}

/**
 * Why a requirement cannot apply to a target, if it cannot: the catalogue judges it for the
 * target's role, but only on other transports or stdio lifecycles. A requirement without
 * any check of the role stays "not covered" (a gap, not an impossibility).
 */
function onlyElsewhere(requirement: string, t: ClaimResults['targets'][number]): string | undefined {
  const ofRole = CHECKS.filter((c) => c.roles.includes(t.role) && c.requirements.includes(requirement));
  if (ofRole.length === 0) return undefined;
  const here = ofRole.some(
    (c) =>
      c.transports.includes(t.transport) &&
      (t.transport !== 'stdio' || t.lifecycle === undefined || c.lifecycles.includes(t.lifecycle)),
  );
  if (here) return undefined;
  return `its ${t.role} checks (${ofRole.map((c) => c.id).join(', ')}) judge it on other targets only`;
}

function requirementMatrix(r: ClaimResults): string {
  const targets = r.targets;
  const borrowed = borrowedRequirements(r.claim.snapshot);
  const rows = REQUIREMENTS.filter((q) => targets.some((t) => q.roles.includes(t.role)))
    .map((q) => {
      const cells = targets
        .map((t) => {
          if (!q.roles.includes(t.role)) return '<td class="c muted">—</td>';
          // A requirement of a profile or binding this target does not claim is not a gap of it.
          if (![`base`, t.transport, ...r.claim.profiles].includes(q.profile))
            return `<td class="c">${badge('not-applicable', 'n/a')}</td>`;
          // A requirement whose checks for this role all judge other transports or lifecycles
          // (AHP-SEC-001's credential echo is an HTTP check of a backend) cannot apply here.
          const elsewhere = onlyElsewhere(q.id, t);
          if (elsewhere) return `<td class="c" title="${esc(elsewhere)}">${badge('not-applicable', 'n/a')}</td>`;
          const covering = r.checks.filter((c) => targetKey(c) === targetKey(t) && c.requirements.includes(q.id));
          if (covering.length === 0 && q.coveredBy)
            return `<td class="c">${badge('checked-elsewhere', 'checked elsewhere')}</td>`;
          // A check exists for it but was left out of this run (--grep): not the same as a gap.
          if (
            covering.length === 0 &&
            applicableChecks(t.role, t.transport, t.lifecycle, r.claim.profiles).some((c) =>
              c.requirements.includes(q.id),
            )
          ) {
            return `<td class="c">${badge('excluded', 'not run')}</td>`;
          }
          return `<td class="c">${cell(covering)}</td>`;
        })
        .join('');
      const note = `${q.coveredBy ? `<div class="muted">${esc(q.coveredBy)}</div>` : ''}${borrowed ? `<div class="muted borrowed">${esc(borrowed.note)}</div>` : ''}`;
      return `<tr data-req="${esc(q.id)}" id="req-${token(q.id)}"><td class="c"><code>${esc(q.id)}</code></td><td>${esc(q.level)}</td><td>${esc(q.profile)}</td><td>${esc(q.text)}${note}</td>${cells}${ledgerCell(r, q.id)}</tr>`;
    })
    .join('\n');
  const head = targets.map((t) => `<th>${esc(targetLabel(t))}</th>`).join('');
  return `<table class="matrix"><thead><tr><th>Requirement</th><th>Level</th><th>Profile</th><th>In our words</th>${head}<th>Ledger</th></tr></thead><tbody>${rows}</tbody></table>`;
}

// ------------------------------------------------------------------ the traceability ledger

const LEDGER_WORDS: Record<LedgerStatus, string> = {
  judged: 'judged',
  'partly-judged': 'partly judged',
  'claim-validation': 'claim validation',
  'not-observable': 'not observable',
  gap: 'gap',
  informative: 'informative',
  'not-claimed': 'not claimed',
};
/** Words for a status read from results.json (which may come from anywhere: escaped where shown). */
const ledgerWord = (status: string): string => LEDGER_WORDS[status as LedgerStatus] ?? status;

const ledgerAnchor = (e: LedgerEntry): string => `ledger-${token(e.source.document)}-${token(e.source.item)}`;

/** The requirement matrix's ledger column: what the ledger says of the requirement, linked to its row. */
function ledgerCell(r: ClaimResults, id: string): string {
  const e = r.ledger?.entries.find((x) => x.source.document === 'requirements' && x.source.item === id);
  if (!e) return '<td class="c muted">—</td>';
  const title = e.reason ?? e.claimValidation ?? e.checks.join(', ');
  return `<td class="c"><a href="#${ledgerAnchor(e)}" title="${esc(title)}">${badge(e.status, ledgerWord(e.status))}</a></td>`;
}

/**
 * How this run went for an entry's checks: the worst status of those that judged something,
 * or "not exercised here" when none did (all not applicable, or not run).
 */
function exercised(r: ClaimResults, e: LedgerEntry): string {
  if (e.checks.length === 0) return '';
  const ids = new Set(e.checks);
  const judged = r.checks.filter((c) => ids.has(c.id) && c.status !== 'not-applicable' && c.status !== 'not-run');
  const worst = SEVERITY.find((s) => judged.some((c) => c.status === s));
  return worst ? badge(worst, statusWord(worst)) : badge('not-exercised', 'not exercised here');
}

function ledgerRow(r: ClaimResults, e: LedgerEntry): string {
  const sha = e.source.sha256
    ? `<div class="muted" title="${esc(e.source.sha256)}">sha256 ${esc(e.source.sha256.slice(0, 12))}…</div>`
    : '';
  const kind = unjudgedKind(e);
  const why = e.reason ? `${kind ? `${UNJUDGED_WORDS[kind] ?? kind}: ` : ''}${e.reason}` : '';
  // The claim file judges it where no check does (the status says so).
  const checks = e.checks.length
    ? `${exercised(r, e)} <span class="muted">${e.checks.map((id) => `<code>${esc(id)}</code>`).join(' ')}</span>`
    : e.claimValidation && e.status === 'claim-validation'
      ? `the claim file: ${esc(e.claimValidation)}`
      : '—';
  return `<tr id="${ledgerAnchor(e)}" data-ledger-status="${token(e.status)}"><td><code>${esc(e.source.item)}</code>${sha}</td><td>${esc(e.says)}</td><td class="c">${badge(e.status, ledgerWord(e.status))}</td><td>${checks}</td><td>${esc(why)}</td></tr>`;
}

const countsText = (entries: readonly LedgerEntry[]): string =>
  LEDGER_STATUSES.map((s) => [s, entries.filter((e) => e.status === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${ledgerWord(s)}`)
    .join(', ');

/**
 * The ledger section: every requirement and profile sentence of the claim's snapshot, what
 * judges it here, and what the certificate therefore does not prove. One table per document.
 */
function ledgerSection(r: ClaimResults): string {
  const head = '<h2 id="ledger">Traceability ledger</h2>';
  const l = r.ledger;
  if (!l)
    return `${head}<p class="muted">These results carry no ledger (the claim's snapshot is unknown, or an earlier runner wrote them).</p>`;
  const documents = [...new Set(l.entries.map((e) => e.source.document))];
  const tables = documents
    .map((d) => {
      const entries = l.entries.filter((e) => e.source.document === d);
      const info = l.documents[d];
      return `<details class="ledger" data-document="${token(d)}"><summary><b>${esc(info?.title ?? d)}</b> · ${esc(countsText(entries))}${info?.sha256 ? ` <span class="muted">sha256 ${esc(info.sha256.slice(0, 12))}…</span>` : ''}</summary>
<table><thead><tr><th>Source</th><th>In our words</th><th>Status</th><th>Judged by (this run)</th><th>Not proved, and why</th></tr></thead><tbody>${entries.map((e) => ledgerRow(r, e)).join('')}</tbody></table></details>`;
    })
    .join('\n');
  return `${head}<p>Every requirement of ${esc(l.snapshot ?? r.claim.snapshot.id)} and every sentence of the conformance profile documents, in our words, with the checks of this claim that judge it, or why none does. <b>This certificate proves a row only as far as its checks judge it and passed: nothing of the rows not observable, gaps, informative or not claimed, and of a partly judged row only what its checks judge.</b> Sentences are named by place and by the sha256 of their text, never quoted.</p>
<p id="ledger-counts">${esc(l.entries.length)} rows: ${esc(countsText(l.entries))}</p>
${tables}`;
}

/** run --repeat: each repetition's status, time and (when not the check's own) message. */
function repetitionsTable(c: CheckResult): string {
  if (!c.repetitions) return '';
  const rows = c.repetitions
    .map(
      (x, i) =>
        `<tr><td class="c">${esc(i + 1)}</td><td>${badge(x.status)}</td><td class="c">${esc(x.durationMs)} ms</td><td>${x.attempts ? `${esc(x.attempts)} attempts ` : ''}${x.message ? `<pre>${esc(x.message)}</pre>` : ''}</td></tr>`,
    )
    .join('');
  return `<p><b>Repetitions</b></p><table class="repetitions"><thead><tr><th>#</th><th>status</th><th>time</th><th>message</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function transcriptTable(lines: readonly TranscriptLine[]): string {
  const rows = lines
    .map((l) => {
      const http = l.http ? `<pre>${escJson(l.http)}</pre>` : '';
      return `<tr><td class="c">${esc(l.t)}</td><td class="t-${token(l.dir)}">${esc(l.dir)}</td><td>${esc(l.channel)}</td><td>${esc(l.note ?? '')}${http}${l.text ? `<pre>${esc(l.text)}</pre>` : ''}</td></tr>`;
    })
    .join('');
  return `<table class="transcript"><thead><tr><th>ms</th><th>dir</th><th>channel</th><th>frame</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** What `run --baseline` and `--expected-failures` found: shown above the requirements. */
export interface Acceptance {
  regression?: {
    baseline: string;
    changes: readonly CheckChange[];
    /** The baseline was judged by another snapshot. */
    snapshots?: { before: string; after: string };
  };
  expected?: ExpectedOutcome;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function acceptanceSection(j: Acceptance): string {
  const out: string[] = [];
  if (j.regression) {
    const { changes } = j.regression;
    const of = (k: CheckChange['change']): number => changes.filter((c) => c.change === k).length;
    // A partial run's checks it did not run are counted, not listed (there may be hundreds).
    const shown = changes.filter((c) => c.change !== 'unchanged' && c.change !== 'not-run');
    // Expected failures come first: a new failure on the list does not fail the run (docs/reports.md).
    const listed = new Set(j.expected?.matched.map((m) => checkKey(m.check)) ?? []);
    const excused = shown.filter((c) => c.change === 'new-failure' && listed.has(c.key)).length;
    const rows = shown
      .map(
        (c) =>
          `<tr data-change="${token(c.change)}"><td><code>${esc(c.id)}</code></td><td>${esc(c.key.slice(c.id.length).trim().replace(/ /g, '/'))}</td><td class="c">${c.before ? badge(c.before, statusWord(c.before)) : '—'}</td><td class="c">${c.after ? badge(c.after, statusWord(c.after)) : '—'}</td><td class="c">${badge(c.change, c.change.replace('-', ' '))}${c.change === 'new-failure' && listed.has(c.key) ? ' <span class="muted">on the expected-failures list: not counted</span>' : ''}</td></tr>`,
      )
      .join('');
    const moved = j.regression.snapshots;
    out.push(
      `<h2 id="baseline">Since the baseline</h2>${moved ? `<p id="baseline-snapshot"><b>${esc(snapshotChangeLine(moved, of('not-comparable')))}</b></p>` : ''}<p>${esc(plural(of('new-failure'), 'new failure'))}, ${esc(of('fixed'))} fixed, ${esc(of('still-failing'))} still failing, ${esc(plural(of('new-check'), 'new check'))}, ${esc(of('removed-check'))} removed${of('not-run') ? `, ${esc(of('not-run'))} not run in this run` : ''}${excused ? ` (${esc(excused)} of the new failures on the expected-failures list, so not counted)` : ''} · baseline <code>${esc(j.regression.baseline)}</code></p>`,
      shown.length
        ? `<table class="changes"><thead><tr><th>Check</th><th>Target</th><th>Before</th><th>Now</th><th>Change</th></tr></thead><tbody>${rows}</tbody></table>`
        : '<p class="muted">No check changed.</p>',
    );
  }
  if (j.expected) {
    const e = j.expected;
    const entry = (x: ExpectedFailure): string =>
      `${esc(x.reason)}${x.expires ? ` <span class="muted">(expires ${esc(x.expires)})</span>` : ''}`;
    const rows = [
      ...e.unexpected.map(
        (c) =>
          `<tr><td><code>${esc(c.id)}</code></td><td>${esc(targetLabel(c))}</td><td class="c">${badge('unexpected')}</td><td class="muted">not on the list</td></tr>`,
      ),
      ...e.expired.map(
        (x) =>
          `<tr><td><code>${esc(x.check)}</code></td><td>${esc(x.target ?? 'any')}</td><td class="c">${badge('expired')}</td><td>${entry(x)}</td></tr>`,
      ),
      ...e.stale.map(
        (x) =>
          `<tr><td><code>${esc(x.check)}</code></td><td>${esc(x.target ?? 'any')}</td><td class="c">${badge('stale', 'no longer failing')}</td><td>${entry(x)}</td></tr>`,
      ),
      // An expired entry that still matched a failure is shown once, as expired.
      ...e.matched
        .filter((m) => !e.expired.includes(m.entry))
        .map(
          (m) =>
            `<tr><td><code>${esc(m.check.id)}</code></td><td>${esc(targetLabel(m.check))}</td><td class="c">${badge('matched', 'expected')}</td><td>${entry(m.entry)}</td></tr>`,
        ),
    ].join('');
    out.push(
      `<h2 id="expected">Expected failures</h2><p>${esc(e.matched.filter((m) => !e.expired.includes(m.entry)).length)} matched, ${esc(e.unexpected.length)} unexpected, ${esc(e.expired.length)} expired, ${esc(e.stale.length)} no longer failing. An unexpected failure, an expired entry or one whose check no longer fails fails the run; the verdict above stays what the checks say.</p>`,
      rows
        ? `<table class="expected"><thead><tr><th>Check</th><th>Target</th><th>Status</th><th>Reason</th></tr></thead><tbody>${rows}</tbody></table>`
        : '',
    );
  }
  return out.join('\n');
}

function checkBlock(r: ClaimResults, c: CheckResult, context: ReportContext, expected?: ExpectedFailure): string {
  const spec = CHECKS.find((x) => x.id === c.id) ? checkSpec(c.id) : undefined;
  const open = c.status === 'failed' || c.status === 'warning' ? ' open' : '';
  const parts = [
    expected
      ? `<p><b>Expected failure:</b> ${esc(expected.reason)}${expected.expires ? ` (until ${esc(expected.expires)})` : ''}</p>`
      : '',
    `<p><b>Expected:</b> ${esc(spec?.expectation ?? c.evidence?.expected ?? '')}</p>`,
    `<p class="muted">${esc(c.level)} · ${esc(c.profile)} · ${c.requirements.map((q) => `<a href="#req-${token(q)}"><code>${esc(q)}</code></a>`).join(' ')}${spec?.seed ? ` · Base Protocol check ${esc(spec.seed)}` : ''} · ${esc(c.durationMs)} ms</p>`,
    c.message ? `<p><b>${c.status === 'passed' ? 'Note' : 'Actual'}:</b></p><pre>${esc(c.message)}</pre>` : '',
    c.evidence?.sent !== undefined ? `<p><b>Sent</b></p><pre>${escJson(c.evidence.sent)}</pre>` : '',
    c.evidence?.received !== undefined ? `<p><b>Received</b></p><pre>${escJson(c.evidence.received)}</pre>` : '',
    c.evidence?.expected && c.evidence.expected !== spec?.expectation
      ? `<p><b>Expected here</b></p><pre>${esc(c.evidence.expected)}</pre>`
      : '',
    repetitionsTable(c),
    c.transcript?.length
      ? `<details><summary>Wire transcript (${c.transcript.length} entries)</summary>${transcriptTable(c.transcript)}</details>`
      : '',
    `<p><b>Rerun just this check:</b></p><pre>${esc(rerunCommand(r, c, context.reportsArg))}</pre>`,
  ]
    .filter(Boolean)
    .join('\n');
  const attrs = `data-status="${token(c.status)}" data-profile="${token(c.profile)}" data-transport="${token(c.transport)}" data-role="${token(c.role)}"`;
  // run --retries: a pass on a retry is shown as flaky, with the attempts; run --repeat: with its repetitions.
  const flaky = !c.flaky
    ? ''
    : c.repetitions
      ? ` <b class="flaky">flaky (${esc(c.repetitions.map((x) => x.status).join(', '))})</b>`
      : ` <b class="flaky">flaky (${esc(c.attempts ?? 2)} attempts)</b>`;
  return `<details class="check" ${attrs}${open}><summary>${badge(c.status, statusWord(c.status))}${flaky} <code>${esc(c.id)}</code> ${esc(c.title)} <span class="muted">${esc(targetLabel(c))}</span></summary>\n${parts}\n</details>`;
}

// The matrix links to a claim's checks of one profile and transport: `index.html?profile=http&transport=http#checks`.
const FILTER_SCRIPT = `(function(){var f=document.getElementById('filters');if(!f)return;var q=new URLSearchParams(location.search);['profile','transport'].forEach(function(k){var v=q.get(k),s=f.querySelector('[name='+k+']');if(v&&s&&Array.prototype.some.call(s.options,function(o){return o.value===v;}))s.value=v;});if(q.get('failed'))f.querySelector('[name=failed]').checked=true;function apply(){var failed=f.querySelector('[name=failed]').checked;var p=f.querySelector('[name=profile]').value;var t=f.querySelector('[name=transport]').value;var n=0;document.querySelectorAll('details.check').forEach(function(d){var show=(!failed||d.dataset.status==='failed'||d.dataset.status==='warning')&&(!p||d.dataset.profile===p)&&(!t||d.dataset.transport===t);d.hidden=!show;if(show)n++;});document.getElementById('shown').textContent=String(n);}f.addEventListener('change',apply);apply();})();`;

/** The banner's pointer to what failed: each failing check id once, with its targets. */
function failingLine(r: ClaimResults): string {
  const failed = r.checks.filter((c) => c.status === 'failed');
  if (failed.length === 0) return '';
  const ids = [...new Set(failed.map((c) => c.id))];
  const where = (id: string): string =>
    failed
      .filter((c) => c.id === id)
      .map((c) => targetLabel(c))
      .join(', ');
  return `<p>Failed: ${ids.map((id) => `<b>${esc(id)}</b> (${esc(where(id))})`).join('; ')}</p>`;
}

/** `1 h 2 min`, `3 min 4 s`, `5.6 s`. */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/**
 * `judged by draft@1d98c19 (upstream commit …, schema digest …)`; when the claim said plain
 * `draft`, `draft resolved to …`: two "draft" certificates may be of different rules.
 */
export function snapshotBanner(s: SnapshotSummary): string {
  if (s.id === UNKNOWN_SNAPSHOT)
    return s.requested === UNKNOWN_SNAPSHOT
      ? 'judged by no snapshot (the claim was incomplete before its snapshot was known)'
      : `judged by no snapshot (the claim asked for "${s.requested}", which this runner does not know)`;
  const who = snapshotIdentity(s);
  return s.requested === s.id ? `judged by ${who}` : `${s.requested} resolved to ${who}`;
}

/** Whether the run was a certification: a published result must be told from a development run. */
function runKindLine(r: ClaimResults): string {
  if (!r.run) return '';
  if (r.run.certification)
    return `<p id="run-kind"><b>Certification run</b> (--certify) by ${esc(r.claim.snapshot.id)}: every check, nothing excused</p>`;
  const why = [
    r.run.selection
      ? 'only some checks ran (--grep)'
      : r.coverage && r.coverage.ran < r.coverage.needed
        ? 'not every check ran'
        : '',
    r.judgement?.expectedFailures ? 'judged with expected failures' : '',
    r.judgement?.baseline ? 'judged against a baseline' : '',
    r.run.repeat ? `every check ran ${r.run.repeat} times (--repeat)` : '',
  ].filter(Boolean);
  const judged = r.judgement
    ? ` · as judged, the run ${r.judgement.accepted ? 'passed' : 'failed'} (the verdict stays what the checks say)`
    : '';
  return `<p id="run-kind"><b>Not a certification</b> (run without --certify${why.length ? `; ${esc(why.join(', '))}` : ''})${judged}</p>`;
}

/** Links to the pages around this one: the run's matrix, Playwright's report, a full report beside a partial one. */
function navigation(context: ReportContext): string {
  const links = [
    context.matrixHref
      ? `<a id="link-matrix" href="${esc(href(context.matrixHref))}">All implementations of this run</a>`
      : '',
    context.fullReportHref
      ? `<a id="link-full" href="${esc(href(context.fullReportHref))}">The full report (this run was partial)</a>`
      : '',
    context.playwrightHref
      ? `<a id="link-playwright" href="${esc(href(context.playwrightHref))}">Playwright report (every attachment)</a>`
      : '',
    '<a href="#requirements">Requirements</a>',
    '<a href="#ledger">Ledger</a>',
    '<a href="#checks">Checks</a>',
  ].filter(Boolean);
  return `<nav class="links">${links.join(' · ')}</nav>`;
}

/** The meta tag naming the sha256 of the results.json a page shows (`ahp-conformance verify`). */
export const RESULTS_DIGEST_META = 'ahp-results-sha256';

export function claimPage(
  r: ClaimResults,
  acceptance: Acceptance = {},
  resultsDigest?: string,
  context: ReportContext = {},
): string {
  const c = r.claim;
  const counts = Object.entries(r.counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${statusWord(k)}`)
    .join(', ');
  // A run that left out checks the claim needs says how many ran, whatever its verdict.
  const cov = r.coverage && r.coverage.ran < r.coverage.needed ? r.coverage : undefined;
  const coverageLine = cov
    ? `<p id="coverage"><b>${esc(coverageText({ ran: cov.ran, needed: cov.needed }, ' the claim needs'))}</b>${cov.why?.length ? `: ${esc(cov.why.join('; '))}` : ''}${r.verdict === 'partial' ? '. Every check that ran passed; the claim is not conformant until every check it needs has run.' : r.counts['not-run'] ? `. ${r.counts['not-run']} not run: the run stopped before ${r.counts['not-run'] === 1 ? 'it' : 'they'} finished or started.` : ''}</p>`
    : '';
  const banner = `<section class="banner v-${token(r.verdict)}" id="verdict"><h1>${esc(c.implementation.name)} ${esc(c.implementation.version)}: ${esc(r.verdict)}</h1>
<p>${r.reason && !reasonIsCoverage(r) ? `${esc(r.reason)} · ` : ''}${esc(counts || 'no checks ran')}</p>${coverageLine}${failingLine(r)}
<p id="snapshot" data-snapshot="${esc(c.snapshot.id)}">AHP: ${esc(snapshotBanner(c.snapshot))}</p>
<p>ahp-conformance ${esc(r.runner.version)} · ${esc(r.generatedAt)}${r.run?.durationMs !== undefined ? ` · ran ${esc(duration(r.run.durationMs))}` : ''}</p>${runKindLine(r)}${
    r.containment && r.containment.kind !== 'sandbox'
      ? `<p class="weak-containment">Containment: ${esc(r.containment.kind)}${r.containment.reason ? ` (${esc(r.containment.reason)})` : ''}: the implementation ran without the sandbox</p>`
      : ''
  }${resultsDigest ? `<p class="muted">results.json sha256 <code>${esc(resultsDigest)}</code></p>` : ''}</section>`;
  const env = r.run?.environment;
  const claimed = `<h2>What was claimed</h2><table><tbody>
<tr><th>Role</th><td>${esc(c.role)}</td></tr><tr><th>Transports</th><td>${esc(c.transports.join(', '))}</td></tr>
<tr><th>stdio lifecycles</th><td>${esc(c.lifecycles.join(', ') || '—')}</td></tr><tr><th>Profiles</th><td>base, ${esc(c.profiles.join(', '))}, ${esc(c.transports.join(', '))}</td></tr>
<tr><th>Snapshot</th><td>${esc(snapshotBanner(c.snapshot))}</td></tr>
<tr><th>Claim file</th><td><code>${esc(c.file)}</code>${c.digest ? ` <span class="muted">sha256 <code>${esc(c.digest)}</code></span>` : ''}</td></tr>${implementationRows(c.implementationFiles, context.attestation)}${
    c.timeoutMsOverride
      ? `<tr><th>timeoutMs</th><td>${esc(c.timeoutMsOverride.run)} (run --timeout-ms; the claim says ${esc(c.timeoutMsOverride.claim)})</td></tr>`
      : ''
  }${
    env
      ? `<tr><th>Environment</th><td>Node ${esc(env.node)} · ${esc(env.platform)}/${esc(env.arch)} · Playwright ${esc(env.playwright)}${r.run?.startedAt ? ` · started ${esc(r.run.startedAt)}` : ''}</td></tr>`
      : ''
  }</tbody></table>`;
  const ranColumn = r.targets.some((t) => t.coverage);
  const targets = `<h2>Verdict per target</h2><table><thead><tr><th>Target</th><th>Verdict</th>${ranColumn ? '<th>Ran</th>' : ''}<th>Passed</th><th>Failed</th><th>Warnings</th><th>Not applicable</th></tr></thead><tbody>${r.targets
    .map(
      (t) =>
        `<tr><td>${esc(targetLabel(t))}</td><td>${badge(t.verdict)}${t.reason ? ` <span class="muted">${esc(t.reason)}</span>` : ''}</td>${ranColumn ? `<td class="c">${t.coverage ? `${esc(t.coverage.ran)} of ${esc(t.coverage.needed)}` : '—'}</td>` : ''}<td class="c">${esc(t.counts.passed)}</td><td class="c">${esc(t.counts.failed)}</td><td class="c">${esc(t.counts.warning)}</td><td class="c">${esc(t.counts['not-applicable'])}</td></tr>`,
    )
    .join('')}</tbody></table>`;
  const profiles = [...new Set(r.checks.map((x) => x.profile))].sort();
  const transports = [...new Set(r.checks.map((x) => x.transport))].sort();
  const filters = `<form class="filters" id="filters"><label><input type="checkbox" name="failed"> failed and warnings only</label>
<label>profile <select name="profile"><option value="">all</option>${profiles.map((p) => `<option value="${token(p)}">${esc(p)}</option>`).join('')}</select></label>
<label>transport <select name="transport"><option value="">all</option>${transports.map((t) => `<option value="${token(t)}">${esc(t)}</option>`).join('')}</select></label>
<span class="muted"><span id="shown">${r.checks.length}</span> of ${r.checks.length} checks shown</span></form>`;
  const order = (x: CheckResult): number => SEVERITY.indexOf(x.status);
  const checks = [...r.checks].sort(
    (a, b) => order(a) - order(b) || a.id.localeCompare(b.id) || targetLabel(a).localeCompare(targetLabel(b)),
  );
  const body = [
    navigation(context),
    banner,
    acceptanceSection(acceptance),
    claimed,
    findingsSection(r),
    targets,
    '<h2 id="requirements">Requirements</h2><p class="muted">Every requirement of the snapshot that binds a claimed role, per target: the worst status of the checks that cover it; "n/a" where the target does not claim its profile or binding, or where its checks judge it on other targets only; "not run" where this run left its checks out; "not covered" where no check covers it yet. The ledger column says how far the claim\'s checks judge it at all (the traceability ledger below).</p>',
    borrowedNote(r.claim.snapshot),
    requirementMatrix(r),
    ledgerSection(r),
    '<h2 id="checks">Checks</h2>',
    filters,
    checks
      .map((x) =>
        checkBlock(r, x, context, acceptance.expected?.matched.find((m) => checkKey(m.check) === checkKey(x))?.entry),
      )
      .join('\n'),
  ].join('\n');
  return page(
    `${c.implementation.name} ${c.implementation.version}: ${r.verdict}`,
    body,
    FILTER_SCRIPT,
    resultsDigest ? { [RESULTS_DIGEST_META]: resultsDigest } : {},
  );
}
