// Layers enforced (in the spirit of Playwright's DEPS.list): every relative import between
// the runner's own files must point down the layer order below, and no files may import
// each other in a cycle. docs/architecture.md describes the layers; this table is the rule.
//
// Imports are read by the TypeScript 7 parser (its `unstable/sync` API: the same parse tsc
// makes, so comments, strings and template text never count as imports). The API is
// marked unstable; if it moves, only parseImports below changes.
import { test, expect } from '@playwright/test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { API } from 'typescript/unstable/sync';
import { createVirtualFileSystem } from 'typescript/unstable/fs';
import { SyntaxKind, type Node, type SourceFile } from 'typescript/unstable/ast';
import { ROOT } from './support/paths.js';

interface Layer {
  readonly name: string;
  /** Folders (ending in /) and single files the layer holds. */
  readonly holds: readonly string[];
  /** The layers directly beneath it; everything beneath those is allowed too. */
  readonly uses: readonly string[];
}

/**
 * THE RULE TABLE, bottom first. A layer may import its own files and every layer reachable
 * through `uses`; nothing above it, nothing beside it. A layer may only use layers listed
 * before it, so the table itself cannot hold a cycle.
 */
const LAYERS: readonly Layer[] = [
  // Utilities with no dependencies of ours: the timing model, the package root, terminal-safe
  // text, and the file-system primitives that refuse redirection.
  {
    name: 'base',
    holds: ['src/timing.ts', 'src/package-root.ts', 'src/terminal.ts', 'src/safe-fs.ts'],
    uses: [],
  },
  // Wire core and transports: standalone, importing nothing of ours (drivers also run as
  // separate processes, e.g. the scripted backend, and are shared with reference/).
  { name: 'protocol', holds: ['src/protocol/'], uses: [] },
  { name: 'drivers', holds: ['drivers/'], uses: [] },
  { name: 'checks', holds: ['src/checks/'], uses: ['protocol', 'base'] },
  { name: 'fixtures', holds: ['src/fixtures/'], uses: ['protocol', 'base'] },
  { name: 'claims', holds: ['src/claims/'], uses: ['checks', 'drivers'] },
  { name: 'results', holds: ['src/results/'], uses: ['checks'] },
  // The engine sits above results: the plan records itself in the results' terms
  // (src/results/run-record.ts) for the reporter; results never reach back into the plan.
  { name: 'engine', holds: ['src/engine/'], uses: ['claims', 'results'] },
  { name: 'cli', holds: ['src/cli/'], uses: ['engine', 'fixtures'] },
  // Above everything, and not into each other: reference implementations, the conformance
  // suites with their Playwright config, and maintenance scripts.
  { name: 'reference', holds: ['reference/'], uses: ['cli'] },
  { name: 'suites', holds: ['suites/', 'playwright.config.ts'], uses: ['cli'] },
  { name: 'scripts', holds: ['scripts/'], uses: ['cli'] },
];

/** What the test reads: every .ts file here. */
const SCANNED = ['src/', 'drivers/', 'reference/', 'suites/', 'scripts/', 'playwright.config.ts'];

interface Import {
  readonly from: string;
  /** Resolved path relative to the project root, or the raw specifier when it is computed. */
  readonly to: string;
  readonly line: number;
  readonly typeOnly: boolean;
  /** import(expr) with a non-literal argument: the check cannot see where it goes. */
  readonly computed?: boolean;
}

// ---------------------------------------------------------------- the checker

function layerOf(file: string, layers: readonly Layer[]): Layer | undefined {
  return layers.find((l) => l.holds.some((h) => (h.endsWith('/') ? file.startsWith(h) : file === h)));
}

/** Every layer `layer` may import, itself included. */
function reachable(layer: Layer, layers: readonly Layer[]): Set<string> {
  const out = new Set<string>([layer.name]);
  const todo = [...layer.uses];
  while (todo.length) {
    const name = todo.pop()!;
    if (out.has(name)) continue;
    out.add(name);
    todo.push(...(layers.find((l) => l.name === name)?.uses ?? []));
  }
  return out;
}

/** Problems in the table itself: unknown names, a use of a layer listed later (upwards). */
function tableProblems(layers: readonly Layer[]): string[] {
  const problems: string[] = [];
  layers.forEach((l, i) => {
    for (const u of l.uses) {
      const j = layers.findIndex((x) => x.name === u);
      if (j < 0) problems.push(`${l.name} uses unknown layer ${u}`);
      else if (j >= i) problems.push(`${l.name} uses ${u}, which is not listed below it`);
    }
  });
  return problems;
}

const mark = (i: Import): string => (i.typeOnly ? ' (type only)' : '');

/** Imports against the layer order, one readable line each. */
function layerViolations(imports: readonly Import[], layers: readonly Layer[] = LAYERS): string[] {
  const out: string[] = [];
  for (const i of imports) {
    const from = layerOf(i.from, layers);
    if (!from) {
      out.push(`${i.from}: in no layer (add it to the table in test/layers.spec.ts)`);
      continue;
    }
    if (i.computed) {
      out.push(`${i.from}:${i.line}: import(${i.to}) has a computed specifier; the layering cannot be checked`);
      continue;
    }
    const to = layerOf(i.to, layers);
    if (!to) {
      out.push(`${i.from}:${i.line} -> ${i.to}${mark(i)}: imports a file in no layer`);
      continue;
    }
    const allowed = reachable(from, layers);
    if (allowed.has(to.name)) continue;
    const may = layers.filter((l) => l !== from && allowed.has(l.name)).map((l) => l.name);
    out.push(
      `${i.from}:${i.line} -> ${i.to}${mark(i)}: ${from.name} may not import ${to.name} (${from.name} may import ${may.length ? may.join(', ') : 'nothing of ours'})`,
    );
  }
  return [...new Set(out)];
}

/** One cycle path per strongly connected set of files (Tarjan), e.g. `a.ts -> b.ts -> a.ts`. */
function importCycles(imports: readonly Import[]): string[] {
  const edges = new Map<string, Set<string>>();
  for (const i of imports) {
    if (i.computed) continue;
    if (!edges.has(i.from)) edges.set(i.from, new Set());
    edges.get(i.from)!.add(i.to);
  }
  const next = (n: string): string[] => [...(edges.get(n) ?? [])].sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const sets: string[][] = [];
  const visit = (n: string): void => {
    index.set(n, index.size);
    low.set(n, index.get(n)!);
    stack.push(n);
    onStack.add(n);
    for (const m of next(n)) {
      if (!index.has(m)) {
        visit(m);
        low.set(n, Math.min(low.get(n)!, low.get(m)!));
      } else if (onStack.has(m)) low.set(n, Math.min(low.get(n)!, index.get(m)!));
    }
    if (low.get(n) === index.get(n)) {
      const set: string[] = [];
      let m: string;
      do {
        m = stack.pop()!;
        onStack.delete(m);
        set.push(m);
      } while (m !== n);
      if (set.length > 1 || edges.get(n)?.has(n)) sets.push(set.sort());
    }
  };
  for (const n of [...edges.keys()].sort()) if (!index.has(n)) visit(n);

  // The shortest way round from the set's first file back to it (breadth first, inside the set).
  return sets.map((set) => {
    const start = set[0]!;
    const inSet = new Set(set);
    const prev = new Map<string, string>();
    const queue = [start];
    let last: string | undefined;
    while (queue.length && !last) {
      const n = queue.shift()!;
      for (const m of next(n)) {
        if (m === start) {
          last = n;
          break;
        }
        if (inSet.has(m) && !prev.has(m)) {
          prev.set(m, n);
          queue.push(m);
        }
      }
    }
    const path = [start];
    for (let n = last!; n !== start; n = prev.get(n)!) path.splice(1, 0, n);
    path.push(start);
    const rest = set.length > path.length - 1 ? ` (${set.length} files in this cycle set: ${set.join(', ')})` : '';
    return path.join(' -> ') + rest;
  });
}

// ---------------------------------------------------------------- reading the imports

const isTypeOnlyImport = (n: Node): boolean => {
  if (n.kind === SyntaxKind.ImportType) return true;
  if (n.kind === SyntaxKind.ExportDeclaration) {
    const e = n as Node & {
      isTypeOnly: boolean;
      exportClause?: Node & { elements?: readonly { isTypeOnly: boolean }[] };
    };
    return e.isTypeOnly || (!!e.exportClause?.elements?.length && e.exportClause.elements.every((x) => x.isTypeOnly));
  }
  if (n.kind === SyntaxKind.ImportDeclaration) {
    const c = (
      n as Node & {
        importClause?: Node & {
          phaseModifier?: SyntaxKind;
          name?: Node;
          namedBindings?: Node & { elements?: readonly { isTypeOnly: boolean }[] };
        };
      }
    ).importClause;
    if (!c) return false; // import './x.js': for its side effects
    if (c.phaseModifier === SyntaxKind.TypeKeyword) return true;
    return !c.name && !!c.namedBindings?.elements?.length && c.namedBindings.elements.every((x) => x.isTypeOnly);
  }
  return false;
};

/** `./x.js` from `src/a/b.ts` -> `src/a/x.ts` (NodeNext specifiers name the emitted .js). */
function resolveSpecifier(from: string, spec: string, files: ReadonlySet<string>): string {
  const base = posix.normalize(posix.join(posix.dirname(from), spec));
  const candidates = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, `${base}/index.ts`];
  return candidates.find((c) => files.has(c)) ?? candidates[0]!;
}

function importsOf(sf: SourceFile, from: string, files: ReadonlySet<string>): Import[] {
  const out: Import[] = [];
  const line = (n: Node): number => sf.getLineAndCharacterOfPosition(n.end).line + 1;
  const add = (owner: Node, spec: Node | undefined): void => {
    if (!spec) return;
    if (spec.kind !== SyntaxKind.StringLiteral && spec.kind !== SyntaxKind.NoSubstitutionTemplateLiteral) {
      out.push({
        from,
        to: sf.text.slice(spec.pos, spec.end).trim(),
        line: line(spec),
        typeOnly: false,
        computed: true,
      });
      return;
    }
    const text = (spec as Node & { text: string }).text;
    if (!text.startsWith('.')) return; // packages and node: builtins are not ours
    out.push({ from, to: resolveSpecifier(from, text, files), line: line(spec), typeOnly: isTypeOnlyImport(owner) });
  };
  const walk = (n: Node): void => {
    switch (n.kind) {
      case SyntaxKind.ImportDeclaration:
      case SyntaxKind.ExportDeclaration:
        add(n, (n as Node & { moduleSpecifier?: Node }).moduleSpecifier);
        return;
      case SyntaxKind.CallExpression: {
        const call = n as Node & { expression: Node; arguments: readonly Node[] };
        if (call.expression.kind === SyntaxKind.ImportKeyword) add(n, call.arguments[0]);
        break;
      }
      case SyntaxKind.ImportType: {
        const arg = (n as Node & { argument: Node & { literal?: Node } }).argument;
        if (arg.literal) add(n, arg.literal);
        break;
      }
    }
    n.forEachChild((c) => void walk(c));
  };
  walk(sf);
  return out;
}

/** Parse the given files (path relative to the root -> text) and return their relative imports. */
function parseImports(sources: Readonly<Record<string, string>>): Import[] {
  // A virtual project holding exactly these files: the parse needs no libraries, and the
  // same path serves the real tree and the in-memory cases below.
  const root = '/layers';
  const paths = Object.keys(sources).sort();
  const vfs: Record<string, string> = {
    [`${root}/tsconfig.json`]: JSON.stringify({
      compilerOptions: { module: 'nodenext', noLib: true, types: [], noEmit: true },
      files: paths,
    }),
  };
  for (const p of paths) vfs[`${root}/${p}`] = sources[p]!;
  const api = new API({ cwd: root, fs: createVirtualFileSystem(vfs) });
  try {
    const project = api.updateSnapshot({ openProjects: [`${root}/tsconfig.json`] }).getProjects()[0]!;
    const files = new Set(paths);
    return paths.flatMap((p) => {
      const sf = project.program.getSourceFile(`${root}/${p}`);
      if (!sf) throw new Error(`${p}: not parsed`);
      return importsOf(sf, p, files);
    });
  } finally {
    api.close();
  }
}

function scannedFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string): void => {
    const abs = posix.join(ROOT, rel);
    if (rel.endsWith('.ts')) {
      if (existsSync(abs)) out[rel] = readFileSync(abs, 'utf8');
      return;
    }
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      if (e.isDirectory()) visit(`${rel}${e.name}/`);
      else if (e.name.endsWith('.ts')) visit(`${rel}${e.name}`);
    }
  };
  for (const s of SCANNED) visit(s);
  return out;
}

// ---------------------------------------------------------------- the tests

// One worker reads the tree once; a failing test does not skip the others.
test.describe.configure({ mode: 'default' });

let tree: { files: string[]; imports: Import[] } | undefined;
const project = (): { files: string[]; imports: Import[] } => {
  if (!tree) {
    const sources = scannedFiles();
    tree = { files: Object.keys(sources).sort(), imports: parseImports(sources) };
  }
  return tree;
};

test('the rule table is ordered bottom first and covers every file', () => {
  expect(tableProblems(LAYERS)).toEqual([]);
  const { files } = project();
  expect(files.length).toBeGreaterThan(50);
  const unplaced = files.filter((f) => !layerOf(f, LAYERS));
  expect(unplaced, `files in no layer (add them to LAYERS in test/layers.spec.ts):\n${unplaced.join('\n')}`).toEqual(
    [],
  );
});

test('no import goes against the layer order', () => {
  const { imports } = project();
  expect(imports.length).toBeGreaterThan(300);
  const violations = layerViolations(imports);
  expect(violations, `${violations.length} import(s) against the layer order:\n${violations.join('\n')}\n`).toEqual([]);
});

test('no files import each other in a cycle', () => {
  const cycles = importCycles(project().imports);
  expect(cycles, `${cycles.length} import cycle(s):\n${cycles.join('\n')}\n`).toEqual([]);
});

test('the checker fails on an upward import, a sideways import, a cycle and a computed import (in memory)', () => {
  const imports = parseImports({
    'src/results/reporter.ts': [
      "import type { RunPlan } from '../engine/plan.js';",
      "export { x } from '../cli/main.js';",
      "export async function later(name: string) { await import('../fixtures/framing.js'); return import(name); }",
      "// import { nope } from '../cli/args.js'; -- a comment is not an import",
      'const s = "import { nope } from \'../cli/io.js\'";',
    ].join('\n'),
    'src/engine/plan.ts':
      "import { y } from '../results/reporter.js';\nexport const z = 1;\nexport type RunPlan = { y: typeof y };\n",
    'src/cli/main.ts': 'export const x = 1;\n',
    'src/fixtures/framing.ts': 'export {};\n',
    'drivers/stdio.ts': "import { patienceMs } from '../src/timing.js';\nexport const t = patienceMs;\n",
    'src/timing.ts': 'export const patienceMs = 1;\n',
  });
  expect(imports.map((i) => `${i.from}:${i.line} -> ${i.to}`).sort()).toEqual([
    'drivers/stdio.ts:1 -> src/timing.ts',
    'src/engine/plan.ts:1 -> src/results/reporter.ts',
    'src/results/reporter.ts:1 -> src/engine/plan.ts',
    'src/results/reporter.ts:2 -> src/cli/main.ts',
    'src/results/reporter.ts:3 -> name',
    'src/results/reporter.ts:3 -> src/fixtures/framing.ts',
  ]);
  expect(layerViolations(imports)).toEqual([
    'drivers/stdio.ts:1 -> src/timing.ts: drivers may not import base (drivers may import nothing of ours)',
    'src/results/reporter.ts:1 -> src/engine/plan.ts (type only): results may not import engine (results may import base, protocol, checks)',
    'src/results/reporter.ts:2 -> src/cli/main.ts: results may not import cli (results may import base, protocol, checks)',
    'src/results/reporter.ts:3 -> src/fixtures/framing.ts: results may not import fixtures (results may import base, protocol, checks)',
    'src/results/reporter.ts:3: import(name) has a computed specifier; the layering cannot be checked',
  ]);
  expect(importCycles(imports)).toEqual(['src/engine/plan.ts -> src/results/reporter.ts -> src/engine/plan.ts']);
  // And the table's own order is checked: a layer may not use one listed above it.
  expect(
    tableProblems([
      { name: 'a', holds: [], uses: ['b'] },
      { name: 'b', holds: [], uses: [] },
    ]),
  ).toEqual(['a uses b, which is not listed below it']);
});
