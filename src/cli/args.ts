// Minimal argument parsing: positionals, `--flag`, `--option value`, `--option=value` and
// the few one-letter aliases Playwright users type (`-h`, `-v`, `-x`).
export class UsageError extends Error {}

export interface ParsedArgs {
  positional: string[];
  flags: Record<string, boolean>;
  options: Record<string, string>;
}

export interface ArgSpec {
  boolean: string[];
  string: string[];
  /** One-letter alias -> the long flag it stands for (a boolean). */
  short?: Record<string, string>;
}

export function parseArgs(argv: string[], spec: ArgSpec): ParsedArgs {
  const out: ParsedArgs = { positional: [], flags: {}, options: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      out.positional.push(...argv.slice(i + 1));
      break;
    }
    if (/^-[A-Za-z]$/.test(arg)) {
      const long = spec.short?.[arg.slice(1)];
      if (!long) throw new UsageError(`unknown option ${arg} (try --help)`);
      out.flags[long] = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      out.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (spec.boolean.includes(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      out.flags[name] = true;
    } else if (spec.string.includes(name)) {
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
      out.options[name] = value;
    } else {
      throw new UsageError(`unknown option --${name} (try --help)`);
    }
  }
  return out;
}
