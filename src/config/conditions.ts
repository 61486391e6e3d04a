/**
 * Conditional routing queries (`strategy.conditions[].query`), compiled once when a config is
 * parsed into a pure predicate over `{ metadata, params }`; a request only runs the predicate.
 *
 * Query language (the one Portkey's `conditionalRouter.ts` uses, so existing configs carry over):
 * an object whose keys are ANDed. A key is `$and` / `$or` (an array of queries) or a dotted path
 * into the context (`metadata.plan`, `params.model`, `params.max_tokens`); its value is either a
 * plain value (shorthand for `$eq`) or an object of operators `$eq $ne $in $nin $gt $gte $lt
 * $lte $regex`, all of which must hold. A missing path yields `undefined`, which equals nothing
 * but is "not equal" / "not in" everything.
 *
 * Ordering operators compare numbers numerically and strings lexically; metadata values are
 * always strings, so a numeric string compared with a number is read as a number (`"10" > 9`).
 * Any other mix is false. Errors (unknown operator, bad regex, wrong operand type) throw
 * `InvalidRequestError` at compile time with `param` naming the JSON path.
 */
import { InvalidRequestError } from '../errors.js';

/** What a query can look at. `params` is the client's chat request body. */
export interface ConditionContext {
  metadata: Readonly<Record<string, string>>;
  params: Readonly<Record<string, unknown>>;
}

export type ConditionPredicate = (context: ConditionContext) => boolean;

const FIELD_OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$regex']);
const ROOTS = new Set(['metadata', 'params']);

/** Compiles a query object. `path` is its JSON path, used in error `param`s. */
export function compileCondition(query: unknown, path: string): ConditionPredicate {
  if (!isPlainObject(query)) throw invalid('a condition query must be an object', path);
  const parts: ConditionPredicate[] = [];
  for (const [key, value] of Object.entries(query)) {
    const keyPath = `${path}.${key}`;
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0) throw invalid(`${key} takes a non-empty array of queries`, keyPath);
      const subs = value.map((sub, i) => compileCondition(sub, `${keyPath}[${i}]`));
      parts.push(key === '$and' ? (ctx) => subs.every((p) => p(ctx)) : (ctx) => subs.some((p) => p(ctx)));
    } else if (key.startsWith('$')) {
      throw invalid(`unknown query operator ${key} (fields are paths like metadata.plan or params.model)`, keyPath);
    } else {
      const segments = key.split('.');
      if (!ROOTS.has(segments[0]!) || segments.length < 2 || segments.some((s) => s === '')) {
        throw invalid('a query field is metadata.<key> or params.<path>', keyPath);
      }
      const test = compileFieldTest(value, keyPath);
      parts.push((ctx) => test(lookup(ctx, segments)));
    }
  }
  return (ctx) => parts.every((p) => p(ctx));
}

function compileFieldTest(spec: unknown, path: string): (value: unknown) => boolean {
  if (!isPlainObject(spec)) {
    if (Array.isArray(spec)) throw invalid('use $in to match one of several values', path);
    return (value) => looseEqual(value, spec);
  }
  const tests: Array<(value: unknown) => boolean> = [];
  for (const [op, operand] of Object.entries(spec)) {
    const opPath = `${path}.${op}`;
    if (!FIELD_OPERATORS.has(op)) throw invalid(`unknown operator ${op}`, opPath);
    tests.push(compileOperator(op, operand, opPath));
  }
  if (tests.length === 0) throw invalid('an operator object needs at least one operator', path);
  return (value) => tests.every((t) => t(value));
}

function compileOperator(op: string, operand: unknown, path: string): (value: unknown) => boolean {
  switch (op) {
    case '$eq':
      return (value) => looseEqual(value, operand);
    case '$ne':
      return (value) => !looseEqual(value, operand);
    case '$in':
    case '$nin': {
      if (!Array.isArray(operand)) throw invalid(`${op} takes an array`, path);
      const list: unknown[] = operand;
      return op === '$in'
        ? (value) => list.some((x) => looseEqual(value, x))
        : (value) => !list.some((x) => looseEqual(value, x));
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      if (typeof operand !== 'number' && typeof operand !== 'string') throw invalid(`${op} takes a number or a string`, path);
      const accept =
        op === '$gt' ? (c: number) => c > 0 : op === '$gte' ? (c: number) => c >= 0 : op === '$lt' ? (c: number) => c < 0 : (c: number) => c <= 0;
      return (value) => {
        const c = compare(value, operand);
        return c !== undefined && accept(c);
      };
    }
    case '$regex': {
      if (typeof operand !== 'string') throw invalid('$regex takes a string', path);
      let re: RegExp;
      try {
        re = new RegExp(operand);
      } catch {
        throw invalid(`invalid regular expression ${JSON.stringify(operand)}`, path);
      }
      return (value) => typeof value === 'string' && re.test(value);
    }
    default:
      throw invalid(`unknown operator ${op}`, path);
  }
}

/** Strict equality, except that a metadata string equals the number it spells (`"3"` = 3). */
function looseEqual(value: unknown, operand: unknown): boolean {
  if (value === operand) return true;
  if (typeof value === 'string' && typeof operand === 'number') return numeric(value) === operand;
  return false;
}

/** Sign of value − operand, or undefined when the two cannot be ordered. */
function compare(value: unknown, operand: number | string): number | undefined {
  if (typeof operand === 'number') {
    const n = typeof value === 'number' ? value : typeof value === 'string' ? numeric(value) : undefined;
    return n === undefined ? undefined : Math.sign(n - operand);
  }
  if (typeof value !== 'string') return undefined;
  return value < operand ? -1 : value > operand ? 1 : 0;
}

function numeric(s: string): number | undefined {
  if (s.trim() === '') return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

function lookup(ctx: ConditionContext, segments: readonly string[]): unknown {
  let cur: unknown = ctx;
  for (const s of segments) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, s)) return undefined;
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(message: string, param: string): InvalidRequestError {
  return new InvalidRequestError(`invalid routing config: ${message}`, { param, code: 'invalid_config' });
}
