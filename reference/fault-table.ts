// What a fault mode of a reference implementation is, shared by the backend's and the
// harness's fault tables: the check ids it must fail, in our words what it breaks, and
// the binding where its rule lives.
import type { SnapshotId } from '../src/protocol/snapshots.js';

export type FaultTransport = 'stdio' | 'http';
export type FaultLifecycle = 'persistent' | 'per_event';

export interface FaultSpec {
  /** The checks the mode fails; none for a mode that breaks no rule (then `passes`). */
  readonly targets: readonly string[];
  /**
   * A mode that breaks no rule but plays with what a rule allows (a slow, out-of-order
   * reply): the checks whose run it changes, each of which must still pass. The fault
   * matrices run them in either scope.
   */
  readonly passes?: readonly string[];
  readonly description: string;
  readonly transport?: FaultTransport;
  readonly lifecycle?: FaultLifecycle;
  /** The snapshot whose rule the mode breaks, where not every one's (the fault matrix runs it under that claim). */
  readonly snapshot?: SnapshotId;
}

/** The mode names of a table, and a type guard for them. */
export function faultModes<T extends Record<string, FaultSpec>>(
  table: T,
): { modes: (keyof T & string)[]; isMode: (value: string) => value is keyof T & string } {
  return {
    modes: Object.keys(table) as (keyof T & string)[],
    isMode: (value: string): value is keyof T & string => Object.prototype.hasOwnProperty.call(table, value),
  };
}
