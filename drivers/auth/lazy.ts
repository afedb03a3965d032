// The OAuth authorization server and the run CA, loaded on first use: the X.509 library they
// need takes about a third of a second to import, and every Playwright worker (and a new one
// after each failed check) would pay it, although only the checks of an OAuth binding use them.
import type * as Ca from './ca.js';
import type * as As from './authorization-server.js';

export interface Auth {
  createRunCa: typeof Ca.createRunCa;
  AuthorizationServer: typeof As.AuthorizationServer;
}

let loading: Promise<Auth> | undefined;

/** The modules, imported once per process. */
export function loadAuth(): Promise<Auth> {
  loading ??= Promise.all([import('./ca.js'), import('./authorization-server.js')]).then(([ca, as]) => ({
    createRunCa: ca.createRunCa,
    AuthorizationServer: as.AuthorizationServer,
  }));
  return loading;
}
