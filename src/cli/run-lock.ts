// The reports folder's lock as `run` and `merge` take it (src/engine/reports-lock.ts): held,
// or one line naming the run that holds it (exit 2). docs/reports.md, "Two runs, one folder".
import { lockFolder } from '../engine/reports-lock.js';
import { terminalLine } from '../terminal.js';
import { show } from './acceptance.js';
import type { Io } from './io.js';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** What a lock line says of a run's claims: `acme (acme.yaml), other (other.yaml)`. */
export function claimsWritten(claims: readonly { name?: string; file: string }[]): string {
  return claims.map((c) => (c.name ? `${c.name} (${c.file})` : c.file)).join(', ');
}

/**
 * Lock `dir` for this run, which writes `what` there. Returns the release, or undefined
 * after saying on stderr, in one line, who holds it.
 */
export function lockReports(dir: string, what: string, io: Io): (() => void) | undefined {
  let got;
  try {
    got = lockFolder(dir, what);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why =
      err.code === 'EEXIST' || err.code === 'ENOTDIR'
        ? 'it is not a folder'
        : err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS'
          ? 'it cannot be written'
          : (err.code ?? err.message);
    io.err(terminalLine(`ahp-conformance: the reports folder ${show(dir)} cannot be locked for this run: ${why}`));
    return undefined;
  }
  if (got.kind === 'held') {
    const onSignal = (signal: NodeJS.Signals): void => {
      // While Playwright runs, src/engine/playwright.ts forwards the signal to it and the
      // run ends its normal way (lock released, folder removed). Before or after, the run
      // ends here, and the exit handlers release the lock and remove the run folder.
      if (process.listenerCount(signal) === 1) process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    for (const s of SIGNALS) process.on(s, onSignal);
    return () => {
      for (const s of SIGNALS) process.off(s, onSignal);
      got.release();
    };
  }
  let line: string;
  if (got.kind === 'refused') line = `${show(got.file)} ${got.reason}; if no run is writing ${show(dir)}, remove it`;
  else {
    const h = got.holder;
    const who = `pid ${h.pid}${got.unknown ? ` on ${h.host}` : ''}, started ${h.startedAt}: ${h.what}`;
    line = got.unknown
      ? `${show(dir)} is locked by another run, ${got.unknown} (${who}); if it is not running, remove ${show(got.file)}`
      : `${show(dir)} is being written by another run (${who}); wait for it to end, or pass --reports <another folder>`;
  }
  io.err(terminalLine(`ahp-conformance: ${line}`));
  return undefined;
}
