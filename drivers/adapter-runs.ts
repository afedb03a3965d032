// Adapter runs shared between the checks of one worker: the first check to ask for a
// scenario runs it, later ones get what it observed. In memory, per worker process, and,
// given a store, also kept where a worker that restarts after a failed check finds it (no
// lock, no polling: the checks that share a scenario run in order in one worker, a
// `mode: 'default'` group, so a restart follows the write). Without the value in memory or
// the store, the scenario simply runs again.

/** Where values outlive a worker: the caller's (a folder of the run the implementation cannot reach). */
export interface SharedRunStore<T> {
  /** The value kept for `key`, or undefined (none, or none that can be read). */
  read(key: string): T | undefined;
  /** Keep the value; never throws (a value not kept is produced again). */
  write(key: string, value: T): void;
}

export class SharedRuns<T> {
  private readonly runs = new Map<string, Promise<T>>();

  /**
   * The value for `key`: produced here (`shared: false`) or by an earlier caller
   * (`shared: true`). A production that fails is forgotten, so the next caller tries again.
   */
  async get(key: string, produce: () => Promise<T>, store?: SharedRunStore<T>): Promise<{ value: T; shared: boolean }> {
    const known = this.runs.get(key);
    if (known) {
      try {
        return { value: await known, shared: true };
      } catch {
        // Its producer failed (and reports that itself): produce it here.
      }
    }
    const kept = known ? undefined : store?.read(key);
    if (kept !== undefined) {
      this.runs.set(key, Promise.resolve(kept));
      return { value: kept, shared: true };
    }
    const made = produce();
    this.runs.set(key, made);
    try {
      const value = await made;
      store?.write(key, value);
      return { value, shared: false };
    } catch (e) {
      if (this.runs.get(key) === made) this.runs.delete(key);
      throw e;
    }
  }
}
