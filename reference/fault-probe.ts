// The one way reference code asks whether a fault mode is on: `fault.is('mode')`.
//
// Why a probe and not a string compare: the every-check fault matrix (test/support/fault-matrix.ts)
// proves that each mode fails only its target checks. Running every mode against every check costs
// modes x checks; instead the conforming reference runs once with tracing on, and every first
// consult of a mode in a process is told on stderr as `ahp-fault-consulted: <mode>`. A check whose
// run never consults a mode cannot be changed by it (the mode's code is never reached), so the
// matrix runs each mode only against the checks that consult it, plus its targets.
//
// That proof holds only if every behaviour of a mode goes through `is`: test/unit/fault-probe.spec.ts
// rejects any other comparison with a mode in reference/. Ask last in a condition (after the
// conditions the mode does not change), so a consult means the mode could change what happens here.
// Processes of an implementation never outlive their check (drivers/containment.ts), so telling
// each mode once per process is telling it once per check at most.

/** The variable that turns tracing on (the fault matrix sets it in its trace claims' env). */
export const FAULT_TRACE_ENV = 'AHP_REFERENCE_FAULT_TRACE';
/** The prefix of a traced consult on stderr; the mode follows. */
export const FAULT_CONSULTED = 'ahp-fault-consulted: ';

export class FaultProbe<M extends string> {
  private readonly told = new Set<string>();

  constructor(
    /** The mode that is on, if any. */
    readonly mode: M | undefined,
    private readonly trace = false,
    private readonly tell: (line: string) => void = (line) => void process.stderr.write(line),
  ) {}

  /** Is `mode` on? Traced: the first ask of each mode is told. */
  is(mode: M): boolean {
    if (this.trace && !this.told.has(mode)) {
      this.told.add(mode);
      this.tell(`${FAULT_CONSULTED}${mode}\n`);
    }
    return this.mode === mode;
  }

  /**
   * What the code would use here: `normal`, or `faulty` when `mode` is on. Where the two are the
   * same the mode changes nothing here, so it is not asked (a tight consult without a hand-written
   * condition). `same` compares them (default: Object.is; arrays element by element).
   */
  pick<T>(mode: M, normal: T, faulty: T, same: (a: T, b: T) => boolean = sameValue): T {
    if (same(normal, faulty)) return normal;
    return this.is(mode) ? faulty : normal;
  }

  /** Is `mode` one of `modes`? Each of them is asked. */
  isAny(...modes: M[]): boolean {
    let on = false;
    for (const m of modes) on = this.is(m) || on;
    return on;
  }
}

function sameValue<T>(a: T, b: T): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
  return Object.is(a, b);
}

/** The probe of a process: its mode (from its command line) and the tracing variable. */
export function faultProbe<M extends string>(mode: M | undefined, env: NodeJS.ProcessEnv = process.env): FaultProbe<M> {
  return new FaultProbe(mode, env[FAULT_TRACE_ENV] === '1');
}

/** The modes a text (a transcript's stderr) says were consulted. */
export function consultedModes(text: string): Set<string> {
  const found = new Set<string>();
  for (const line of text.split('\n')) {
    const at = line.indexOf(FAULT_CONSULTED);
    if (at >= 0) found.add(line.slice(at + FAULT_CONSULTED.length).trim());
  }
  return found;
}
