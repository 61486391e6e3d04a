/**
 * A guard on one V8 pitfall that cost every stream a full promotion (issue 25, fourth round): a
 * generator function (`function*`, `async function*`, or a generator method of an object literal)
 * created inside another function is a new closure on every call, and each such closure gets its
 * own `prototype` and so its own initial map for the generators it makes. V8 keeps maps in the
 * old generation, and the map points back to the closure, whose context holds everything the
 * generator uses. So until the next full collection every scavenge kept each stream's whole graph
 * alive (request, translator, undici response) and promoted it: about 10 KB per stream and 5–7 ms
 * scavenges at 200 streams/s (`node bench/allocations.mjs --only off --target stream --rate 200
 * --promoted`: 17.5 KiB promoted per stream before, 0.6 after the providers' generators moved to
 * module level). The same generator declared once at module level, with what it needs passed as
 * arguments, has one map for the whole process.
 *
 * This test reads every source file of the request path and fails on a generator function nested
 * in a function, naming file and line. Generator methods of classes are fine: a class at module
 * level is evaluated once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REQUEST_PATH_DIRS, root, sourceFiles } from './request-path-sources.js';

function isGenerator(node: ts.Node): boolean {
  return (
    (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || (ts.isMethodDeclaration(node) && ts.isObjectLiteralExpression(node.parent))) &&
    node.asteriskToken !== undefined
  );
}

/** `file:line  name` of every generator function created inside another function. */
function nestedGenerators(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node, insideFunction: boolean): void => {
    if (insideFunction && isGenerator(node)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      const name = (node as ts.FunctionLikeDeclaration).name?.getText() ?? '(anonymous)';
      found.push(`${file}:${line + 1}  ${name}`);
    }
    const opensFunction = ts.isFunctionLike(node) && !ts.isClassDeclaration(node);
    ts.forEachChild(node, (child) => visit(child, insideFunction || opensFunction));
  };
  visit(source, false);
  return found;
}

describe('generator functions on the request path', () => {
  it('finds a nested generator (the check itself)', () => {
    expect(nestedGenerators('x.ts', 'function f() { async function* g() { yield 1; } return g(); }')).toStrictEqual(['x.ts:1  g']);
    expect(nestedGenerators('x.ts', 'const f = () => { const g = function* () { yield 1; }; return g(); };')).toStrictEqual(['x.ts:1  (anonymous)']);
    expect(nestedGenerators('x.ts', 'function f() { return { *[Symbol.iterator]() { yield 1; } }; }')).toStrictEqual(['x.ts:1  [Symbol.iterator]']);
    expect(
      nestedGenerators('x.ts', 'async function* g(a: number) { yield a; }\nclass C { *items() { yield 1; } }\nfunction f() { return g(1); }'),
    ).toStrictEqual([]);
  });

  it('none is created inside another function', () => {
    // the Responses API too: it streams through the same providers
    const files = sourceFiles([...REQUEST_PATH_DIRS, 'responses']);
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((file) => nestedGenerators(file, readFileSync(join(root, file), 'utf8')));
    expect(found).toStrictEqual([]);
  });
});
