// The section "Claim against behaviour" of a claim report: results.json's findings
// (src/results/over-claim.ts), failures first, each with what it compares, what was seen,
// the check and requirement it rests on and the targets it was seen on.
import type { ClaimResults } from '../model.js';
import { esc, token } from './escape.js';
import { badge } from './page.js';

export function findingsSection(r: ClaimResults): string {
  const findings = r.findings;
  // Results of an earlier version were never compared: no section rather than a false "agree".
  if (!findings) return '';
  const head = '<h2 id="claim-against-behaviour">Claim against behaviour</h2>';
  if (findings.length === 0)
    return `${head}<p class="muted">What the claim says agrees with what the implementation advertised and did in this run.</p>`;
  const failures = findings.filter((f) => f.level === 'failure').length;
  const warnings = findings.length - failures;
  const counts = [
    failures ? `${failures} failure${failures === 1 ? '' : 's'} (the check named decides the verdict)` : '',
    warnings ? `${warnings} warning${warnings === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  const intro = `<p>${esc(counts.join(', '))}. A warning changes no verdict: it says what the certificate does not cover, or what the claim says that the run did not show.</p>`;
  const rows = findings
    .map(
      (f) =>
        `<tr data-kind="${token(f.kind)}" data-level="${token(f.level)}"><td class="c">${f.level === 'failure' ? badge('failed', 'failure') : badge('warning')}</td><td><code>${esc(f.kind)}</code></td><td>${esc(f.says)}<div class="muted">${esc(f.evidence)}</div></td><td>${f.check ? `<code>${esc(f.check)}</code> ` : ''}<a href="#req-${token(f.requirement)}"><code>${esc(f.requirement)}</code></a></td><td>${esc(f.targets.join(', '))}</td></tr>`,
    )
    .join('');
  return `${head}${intro}<table class="findings"><thead><tr><th>Level</th><th>Kind</th><th>Finding</th><th>Rests on</th><th>Targets</th></tr></thead><tbody>${rows}</tbody></table>`;
}
