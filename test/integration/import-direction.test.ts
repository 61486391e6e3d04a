/**
 * Imports run downhill only (issue 20; DESIGN "Layout"). The layers are declared once, below,
 * top first: a module may import its own folder and any folder on a lower layer, never one on
 * its own layer or above it, types included (`import type` climbs as surely as a value import
 * does: a type both sides need belongs to the lower one). Dynamic `import()` counts too; the
 * one place allowed to name every front door is the composition root, which sits above them.
 * A second check fails on any cycle between modules, whatever their layers.
 *
 * Reads every non-test source file under src/ with the TypeScript parser (as
 * hot-path-spreads.test.ts does) and resolves relative specifiers itself; no exceptions list.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = join(import.meta.dirname, '..', '..', 'src');

/**
 * The layers, top first. Each entry is one layer; a name is a folder under src/ or a file at its
 * root. Folders on one layer are siblings: none imports another.
 */
export const LAYERS: ReadonlyArray<ReadonlyArray<string>> = [
  // Entry points: the CLI, the demo it runs, and the client library (which reads the traces
  // door's answer types).
  ['main.ts'],
  ['demo.ts', 'client'],
  // The composition root: builds the gateway and names every front door in the route table.
  ['gateway'],
  // Pages over the traces door's summaries.
  ['traces-view'],
  // Front doors: one room each, with its route, request parsing and answer shaping.
  ['chat-completions', 'responses', 'prompts', 'files', 'embeddings', 'models', 'logs', 'feedback', 'traces', 'virtual-keys', 'cached-contents'],
  // The HTTP core every door shares, and the operation path.
  ['server'],
  ['routing'],
  ['config'],
  ['keys'],
  ['telemetry'],
  ['providers'],
  ['media'],
  // Written from the wire reference alone: imports no provider code (checked below too).
  ['emulator'],
  ['overload'],
  // The OpenAI wire shapes every layer speaks.
  ['openai'],
  // Shared leaves: the error types (which scrub their messages), and small helpers.
  ['errors.ts'],
  ['scrub-secrets.ts', 'issue-param.ts', 'fast-safe-parse.ts', 'client-signal.ts', 'one-run-at-a-time.ts', 'watch-dirs.ts', 'http-client.ts'],
];

const rankOf = new Map<string, number>(LAYERS.flatMap((names, rank) => names.map((name) => [name, rank] as const)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__fixtures__' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The top-level folder (or root file) a source file belongs to. */
function roomOf(file: string): string {
  return relative(src, file).split('/')[0]!;
}

/** Relative module specifiers of a file: static imports and exports, and `import()` with a literal. */
function specifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((s) => s.startsWith('.'));
}

function resolveSpecifier(from: string, spec: string): string {
  const path = resolve(dirname(from), spec.replace(/\.js$/, '.ts'));
  if (existsSync(path)) return path;
  const index = join(resolve(dirname(from), spec), 'index.ts');
  if (existsSync(index)) return index;
  throw new Error(`${relative(src, from)}: cannot resolve '${spec}'`);
}

const files = sourceFiles(src);
const graph = new Map(files.map((file) => [file, specifiers(file).map((spec) => resolveSpecifier(file, spec))]));

describe('import direction (issue 20)', () => {
  it('declares every folder and root file of src/ on exactly one layer', () => {
    const rooms = [...new Set(files.map(roomOf))].sort();
    expect(rooms.filter((room) => !rankOf.has(room))).toStrictEqual([]);
    const declared = LAYERS.flat();
    expect(declared.length).toBe(new Set(declared).size);
  });

  it('has no import that climbs a layer or crosses to a sibling', () => {
    const climbing: string[] = [];
    for (const [file, targets] of graph) {
      const from = roomOf(file);
      for (const target of targets) {
        const to = roomOf(target);
        if (to !== from && rankOf.get(to)! <= rankOf.get(from)!) {
          climbing.push(`${relative(src, file)} → ${relative(src, target)}`);
        }
      }
    }
    expect(climbing).toStrictEqual([]);
  });

  it('has no cycle between modules', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const walk = (file: string): void => {
      state.set(file, 'open');
      stack.push(file);
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === 'open') {
          cycles.push([...stack.slice(stack.indexOf(target)), target].map((f) => relative(src, f)).join(' → '));
        } else if (!state.has(target)) {
          walk(target);
        }
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) walk(file);
    expect(cycles).toStrictEqual([]);
  });

  it('keeps the emulator apart from the providers, and the request path apart from the emulator', () => {
    const crossing: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        const [from, to] = [roomOf(file), roomOf(target)];
        const entryPoint = from === 'main.ts' || from === 'demo.ts';
        if ((from === 'emulator' && to === 'providers') || (to === 'emulator' && from !== 'emulator' && !entryPoint)) {
          crossing.push(`${relative(src, file)} → ${relative(src, target)}`);
        }
      }
    }
    expect(crossing).toStrictEqual([]);
  });
});
