/**
 * A guard on one V8 pitfall that cost sidegate microseconds per request (issue 11): in Node 20
 * (V8 11.3), an object literal that STARTS with a spread of a non-empty object and has more
 * properties after it (`{ ...headers, accept }`, `{ ...(cond ? { a } : {}), b }`, `{ ...x, ...y }`)
 * takes a slow path inside V8 (measured, not explained here): 0.4–1.8 µs per literal, against 20–60 ns for the same object built as
 * `{ accept, ...headers }` (when no key collides), `Object.assign({}, headers, { accept })`, or
 * with plain assignments (a loop of 300,000 of each).
 * One such literal on the request path, `convertResponse`'s outcome, was 3 µs of the 5.4 µs the
 * whole conversion took.
 *
 * This test reads every source file of the chat and embeddings request path (the directories
 * below) and fails on that shape, naming file and line, so it does not creep back in. Code that
 * runs once at startup is held to it too: one rule is easier to keep than a list of exceptions,
 * and objects built there (the routes' dependencies, the telemetry) are read on every request.
 * The other front doors (Responses API, prompts, logs parsing) and the client library still have
 * the shape in places: not yet checked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REQUEST_PATH_DIRS, root, sourceFiles } from './request-path-sources.js';

/** `file:line  literal` of every object literal that starts with a spread and goes on after it. */
function leadingSpreads(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node) && node.properties.length > 1 && ts.isSpreadAssignment(node.properties[0]!)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${file}:${line + 1}  ${node.getText().replace(/\s+/g, ' ').slice(0, 100)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('object literals on the request path', () => {
  it('finds the slow shape (the check itself)', () => {
    expect(leadingSpreads('x.ts', 'const a = { ...h, accept: 1 };').length).toBe(1);
    expect(leadingSpreads('x.ts', 'const a = { ...(c ? { x } : {}), y };').length).toBe(1);
    expect(leadingSpreads('x.ts', 'const a = { ...h, ...g };').length).toBe(1);
    expect(leadingSpreads('x.ts', 'const a = { accept: 1, ...h }; const b = { ...h }; const c = Object.assign({}, h, { a: 1 });')).toStrictEqual([]);
  });

  it('none starts with a spread and goes on after it', () => {
    const files = sourceFiles(REQUEST_PATH_DIRS);
    expect(files.length).toBeGreaterThan(50);
    const offenders = files.flatMap((file) => leadingSpreads(file, readFileSync(join(root, file), 'utf8')));
    expect(offenders).toStrictEqual([]);
  });
});
