// What a fault mode of a reference implementation is, shared by the backend's and the
// harness's fault tables: the check ids it must fail, in our words what it breaks, and
// the binding where its rule lives.
import type { SnapshotId } from '../src/protocol/snapshots.js';

export type FaultTransport = 'stdio' | 'http';
export type FaultLifecycle = 'persistent' | 'per_event';

export interface FaultSpec {
  readonly targets: readonly string[];
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
