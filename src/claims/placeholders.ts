// The claim's placeholders checked before any process starts: `{port}` (backend.http: url,
// args, env) and `{config}` (harness.args). Commands run without a shell, so `$PORT` or
// `${AHP_ADAPTER_CONFIG}` reach the implementation as written; a url and a server that
// disagree on the port would otherwise cost every check its time-out before the run fails.
import type { Transport } from '../checks/catalogue.js';

const PORT = '{port}';
const CONFIG = '{config}';

/** Spellings of `{port}` that are not it: `$PORT`, `${port}`, `{{port}}`, `{PORT}`, `%PORT%`, `<port>`. */
const PORT_LOOKALIKE = /\$\{\s*port\s*\}|\$port\b|\{\{\s*port\s*\}\}|%port%|<port>|\{\s*port\s*\}/gi;
/** The same for `{config}`, and the adapter config's variable written for a shell. */
const CONFIG_LOOKALIKE =
  /\$\{\s*(?:config|AHP_ADAPTER_CONFIG)\s*\}|\$(?:config|AHP_ADAPTER_CONFIG)\b|\{\{\s*config\s*\}\}|%(?:config|AHP_ADAPTER_CONFIG)%|<config>|\{\s*config\s*\}/gi;

interface Launch {
  args?: unknown;
  env?: unknown;
  url?: unknown;
  command?: unknown;
}

/** The block's texts that may hold placeholders, each with its field name. */
function texts(block: Launch, where: string, withUrl: boolean): [string, string][] {
  const out: [string, string][] = [];
  if (withUrl && typeof block.url === 'string') out.push([`${where}.url`, block.url]);
  if (Array.isArray(block.args))
    block.args.forEach((a, i) => typeof a === 'string' && out.push([`${where}.args[${i}]`, a]));
  if (block.env && typeof block.env === 'object')
    for (const [k, v] of Object.entries(block.env)) if (typeof v === 'string') out.push([`${where}.env.${k}`, v]);
  return out;
}

/** A spelling that is not the placeholder, found in `text`. */
const lookalike = (text: string, pattern: RegExp, placeholder: string): string | undefined =>
  [...text.matchAll(pattern)].map((m) => m[0]).find((m) => m !== placeholder);

/** A spelling of `{port}` in `text` that is not it (its line comes from {@link checkPlaceholders}). */
export const portLookalike = (text: string): string | undefined => lookalike(text, PORT_LOOKALIKE, PORT);

/** Placeholder problems of a launch block, one line each (empty: none). */
export function checkPlaceholders(
  kind: 'backend' | 'harness',
  block: object | undefined,
  transports: readonly Transport[],
): string[] {
  const problems: string[] = [];
  if (!block || typeof block !== 'object') return problems;
  if (kind === 'harness') {
    for (const [where, text] of texts(block as Launch, 'harness', false)) {
      if (text.includes(PORT))
        problems.push(`${where}: ${PORT} is filled in only for backend.http; a harness adapter gets ${CONFIG}`);
      const near = lookalike(text, CONFIG_LOOKALIKE, CONFIG);
      if (near)
        problems.push(
          `${where}: "${near}" is not filled in (the adapter starts without a shell); write ${CONFIG} in harness.args`,
        );
      else if (text.includes(CONFIG) && !where.startsWith('harness.args'))
        problems.push(`${where}: ${CONFIG} is filled in only in harness.args; the environment has AHP_ADAPTER_CONFIG`);
    }
    return problems;
  }
  const stdio = (block as { stdio?: unknown }).stdio as Launch | undefined;
  if (transports.includes('stdio') && stdio && typeof stdio === 'object') {
    for (const [where, text] of texts(stdio, 'backend.stdio', false)) {
      if (text.includes(PORT))
        problems.push(`${where}: ${PORT} is filled in only for backend.http; a stdio backend gets no port`);
      if (text.includes(CONFIG)) problems.push(`${where}: ${CONFIG} is filled in only in harness.args`);
    }
  }
  const http = (block as { http?: unknown }).http as Launch | undefined;
  if (!transports.includes('http') || !http || typeof http !== 'object') return problems;
  const all = texts(http, 'backend.http', true);
  let misspelt = false;
  for (const [where, text] of all) {
    const near = lookalike(text, PORT_LOOKALIKE, PORT);
    if (near) {
      misspelt = true;
      problems.push(
        `${where}: "${near}" is not the port placeholder${where.endsWith('.url') ? '' : ' (the server starts without a shell)'}; write ${PORT}`,
      );
    }
    if (text.includes(CONFIG)) problems.push(`${where}: ${CONFIG} is filled in only in harness.args`);
  }
  if (misspelt || http.command === undefined || typeof http.url !== 'string') return problems;
  // The runner picks a free port per launch: the server must be told it, and the url must use it.
  const inUrl = http.url.includes(PORT);
  const told = all.filter(([where, text]) => !where.endsWith('.url') && text.includes(PORT)).map(([w]) => w);
  if (inUrl && told.length === 0)
    problems.push(
      `backend.http.url holds ${PORT} but neither backend.http.args nor backend.http.env does: ` +
        `the server would never learn the free port the runner picks; pass "${PORT}" in args or env`,
    );
  if (!inUrl && told.length > 0) {
    let port = '';
    try {
      port = new URL(http.url).port;
    } catch {
      // Not a URL: its own line says so (src/claims/load.ts).
    }
    problems.push(
      `${told[0]} holds ${PORT} (a free port the runner picks) but backend.http.url ${port ? `hard-codes port ${port}` : `has no ${PORT}`}: ` +
        `the runner would post where the server does not listen; write ${PORT} in the url`,
    );
  }
  return problems;
}
