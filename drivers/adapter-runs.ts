// Adapter runs shared between the checks of one worker: the first check to ask for a
// scenario runs it, later ones get what it observed. In memory, per worker process: no
// file, no lock, no polling. The checks that share a scenario run in order in one worker
// (a `mode: 'default'` group); a worker that restarts after a failure starts empty and
// simply runs the scenario again.

export class SharedRuns<T> {
  private readonly runs = new Map<string, Promise<T>>();

  /**
   * The value for `key`: produced here (`shared: false`) or by an earlier caller
   * (`shared: true`). A production that fails is forgotten, so the next caller tries again.
   */
  async get(key: string, produce: () => Promise<T>): Promise<{ value: T; shared: boolean }> {
    const known = this.runs.get(key);
    if (known) {
      try {
        return { value: await known, shared: true };
      } catch {
        // Its producer failed (and reports that itself): produce it here.
      }
    }
    const made = produce();
    this.runs.set(key, made);
    try {
      return { value: await made, shared: false };
    } catch (e) {
      if (this.runs.get(key) === made) this.runs.delete(key);
      throw e;
    }
  }
}
