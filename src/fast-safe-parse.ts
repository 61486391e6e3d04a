/**
 * `schema.safeParse(value)`, answered without running zod's parser when the value is plainly
 * valid: a check compiled once from the schema's own definition says whether zod would accept the
 * value and hand back an equal one, and then the value itself is the answer. Anything else (an
 * error, a key zod would strip, a construct the check does not know) goes to `schema.safeParse`,
 * so every failure, message and path is zod's own.
 *
 * Why: zod builds a fresh copy of every object and array it accepts, with a result object and an
 * issue array per field, on both edges of every request (the client's body and Gemini's answer).
 * Validation alone was 13 µs of sidegate's 150–160 µs per request at the bench's maximum (a build
 * without it, `node bench/compare.mjs --rate max`, both orders), most of it in copies that a JSON
 * body, which nothing else holds, does not need.
 *
 * How: each schema node compiles to a function answering ACCEPT (zod accepts, and its output is
 * equal to the input), REJECT (zod certainly refuses) or UNSURE. Only the two certain answers let
 * a union try its next option, which keeps zod's rule that the first option that parses wins.
 * Checks (`min`, `int`, `refine`…) run as zod runs them, by their own `check` functions. A node
 * whose output can differ from its input (a transform, a default, `trim`, a pipe) or that the
 * compiler does not know always answers UNSURE. Equal, not identical: objects keep the client's
 * key order, where zod's copy follows the schema's.
 */
import type { z } from 'zod';

const ACCEPT = 0;
const REJECT = 1;
const UNSURE = 2;
type Verdict = typeof ACCEPT | typeof REJECT | typeof UNSURE;
type Check = (value: unknown) => Verdict;

/** The parts of zod's internals (zod/v4/core) the compiler reads. */
interface Internals {
  def: {
    type: string;
    checks?: CheckInternals[];
    shape?: Record<string, Schema>;
    catchall?: Schema;
    element?: Schema;
    innerType?: Schema;
    keyType?: Schema;
    valueType?: Schema;
    options?: Schema[];
    discriminator?: string;
    unionFallback?: boolean;
    /** false for `z.xor` (exactly one option) and discriminated unions. */
    inclusive?: boolean;
    coerce?: boolean;
  };
  traits: Set<string>;
  optin?: string;
  optout?: string;
  values?: Set<unknown>;
}
interface Schema {
  _zod: Internals;
}
interface CheckInternals {
  _zod: {
    def: { check?: string; when?: (payload: Payload) => boolean };
    check: (payload: Payload) => unknown;
  };
}
interface Payload {
  value: unknown;
  issues: unknown[];
}

/** A parser with `schema.safeParse`'s answers. */
export function fastSafeParser<S extends z.ZodType>(schema: S): (value: unknown) => z.ZodSafeParseResult<z.output<S>> {
  const check = compile(schema as unknown as Schema, new Map());
  return (value) => (check(value) === ACCEPT ? { success: true, data: value as z.output<S> } : schema.safeParse(value));
}

/** True when `fastSafeParser(schema)` answers `value` without zod (for tests: the fast path is taken). */
export function plainlyValid(schema: z.ZodType, value: unknown): boolean {
  return compile(schema as unknown as Schema, new Map())(value) === ACCEPT;
}

const unsure: Check = () => UNSURE;

function compile(schema: Schema, seen: Map<Schema, Check>): Check {
  const known = seen.get(schema);
  if (known) return known;
  // A schema met again while compiling itself (recursion through a getter): checked through a late-bound slot.
  let slot: Check = unsure;
  seen.set(schema, (value) => slot(value));
  const compiled = withChecks(schema, typeCheck(schema, seen));
  slot = compiled;
  seen.set(schema, compiled);
  return compiled;
}

/** The node's own checks after its type, as zod's `run` applies them; UNSURE for one that rewrites the value. */
function withChecks(schema: Schema, base: Check): Check {
  const internals = schema._zod;
  const checks = [...(internals.traits.has('$ZodCheck') ? [schema as unknown as CheckInternals] : []), ...(internals.def.checks ?? [])];
  if (checks.length === 0 || base === unsure) return base;
  if (checks.some((ch) => ch._zod.def.check === 'overwrite')) return unsure;
  return (value) => {
    const verdict = base(value);
    if (verdict !== ACCEPT) return verdict;
    const payload: Payload = { value, issues: [] };
    for (const ch of checks) {
      const when = ch._zod.def.when;
      if (when && !when(payload)) continue;
      if (ch._zod.check(payload) instanceof Promise) return UNSURE;
      if (payload.issues.length > 0) return REJECT;
    }
    return ACCEPT;
  };
}

function typeCheck(schema: Schema, seen: Map<Schema, Check>): Check {
  const { def, values } = schema._zod;
  if (def.coerce) return unsure;
  switch (def.type) {
    case 'string':
      return (v) => (typeof v === 'string' ? ACCEPT : REJECT);
    case 'number':
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? ACCEPT : REJECT);
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? ACCEPT : REJECT);
    case 'null':
      return (v) => (v === null ? ACCEPT : REJECT);
    case 'unknown':
    case 'any':
      return () => ACCEPT;
    case 'literal':
    case 'enum':
      return values ? (v) => (values.has(v) ? ACCEPT : REJECT) : unsure;
    case 'optional': {
      const inner = compile(def.innerType!, seen);
      // An absent value stays absent unless the inner schema substitutes one (a default).
      if (def.innerType!._zod.optin === 'defaulted') return unsure;
      // `z.exactOptional` lets a key be absent but not `undefined`: the inner schema judges it.
      if (schema._zod.traits.has('$ZodExactOptional')) return inner;
      return (v) => (v === undefined ? ACCEPT : inner(v));
    }
    case 'nullable': {
      const inner = compile(def.innerType!, seen);
      return (v) => (v === null ? ACCEPT : inner(v));
    }
    case 'array': {
      const element = compile(def.element!, seen);
      return (v) => {
        if (!Array.isArray(v)) return REJECT;
        let verdict: Verdict = ACCEPT;
        for (let i = 0; i < v.length; i++) {
          const item = element(v[i]);
          if (item === REJECT) return REJECT;
          if (item === UNSURE) verdict = UNSURE;
        }
        return verdict;
      };
    }
    case 'object':
      return objectCheck(def, seen);
    case 'record':
      return recordCheck(def, seen);
    case 'union':
      if (def.discriminator !== undefined) return discriminatedCheck(schema, seen);
      return def.inclusive === false ? unsure : unionCheck(def.options!, seen);
    default:
      return unsure;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What `JSON.parse` makes (zod's copy is one of these). */
function isPlain(v: object): boolean {
  return Object.getPrototypeOf(v) === Object.prototype;
}

function objectCheck(def: Internals['def'], seen: Map<Schema, Check>): Check {
  const shape = def.shape ?? {};
  const fields = new Map<string, Check>();
  // Keys zod requires: absent, zod runs the field on `undefined` (an error, or a value it invents).
  const required: string[] = [];
  for (const [key, field] of Object.entries(shape)) {
    fields.set(key, compile(field, seen));
    if (!(field._zod.optin === 'optional' && field._zod.optout === 'optional')) required.push(key);
  }
  // Unknown keys: strict objects refuse them, loose ones keep them as they are, stripping ones drop them (a different output).
  const catchall = def.catchall?._zod.def.type;
  const unknownKey: Verdict = catchall === 'never' ? REJECT : catchall === 'unknown' || catchall === 'any' ? ACCEPT : UNSURE;
  return (v) => {
    if (!isObject(v)) return REJECT;
    // zod answers a plain copy: for a class instance (a Date, a Map) that is not the value itself.
    if (!isPlain(v)) return UNSURE;
    let verdict: Verdict = ACCEPT;
    for (const key in v) {
      // zod never copies a `__proto__` key into its output.
      if (key === '__proto__') return UNSURE;
      const field = fields.get(key);
      const result = field === undefined ? unknownKey : field(v[key]);
      if (result === REJECT) return REJECT;
      if (result === UNSURE) verdict = UNSURE;
    }
    for (const key of required) if (!(key in v)) return UNSURE;
    return verdict;
  };
}

function recordCheck(def: Internals['def'], seen: Map<Schema, Check>): Check {
  const key = def.keyType!._zod;
  // Only the plain `z.record(z.string(), …)`: every own key is a string key, none enumerated or checked.
  if (key.def.type !== 'string' || key.values !== undefined || (key.def.checks?.length ?? 0) > 0 || key.traits.has('$ZodCheck')) return unsure;
  const value = compile(def.valueType!, seen);
  return (v) => {
    if (!isObject(v)) return REJECT;
    if (!isPlain(v) || Object.hasOwn(v, 'constructor')) return UNSURE;
    let verdict: Verdict = ACCEPT;
    for (const k in v) {
      if (k === '__proto__') return UNSURE;
      const result = value(v[k]);
      if (result === REJECT) return REJECT;
      if (result === UNSURE) verdict = UNSURE;
    }
    return verdict;
  };
}

/** zod returns the first option that parses: ours may only skip an option zod certainly refuses. */
function unionCheck(options: Schema[], seen: Map<Schema, Check>): Check {
  const checks = options.map((option) => compile(option, seen));
  return (v) => {
    for (const check of checks) {
      const result = check(v);
      if (result !== REJECT) return result;
    }
    return REJECT;
  };
}

function discriminatedCheck(schema: Schema, seen: Map<Schema, Check>): Check {
  const { def } = schema._zod;
  if (def.unionFallback) return unsure;
  const key = def.discriminator!;
  // The option each discriminator value names, from the options' own literal values, as zod maps them.
  const byValue = new Map<unknown, Check>();
  for (const option of def.options!) {
    const field = option._zod.def.shape?.[key];
    if (!field?._zod.values || field._zod.optin !== undefined) return unsure;
    const check = compile(option, seen);
    for (const value of field._zod.values) {
      if (byValue.has(value)) return unsure;
      byValue.set(value, check);
    }
  }
  return (v) => {
    if (!isObject(v)) return REJECT;
    const option = byValue.get(v[key]);
    return option === undefined ? REJECT : option(v);
  };
}
