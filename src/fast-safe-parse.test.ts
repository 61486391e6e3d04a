import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fastSafeParser, plainlyValid } from './fast-safe-parse.js';
import { ChatCompletionRequestSchema } from './openai/chat-request.js';
import { EmbeddingsRequestSchema } from './openai/embeddings.js';
import { WireResponse } from './providers/gemini/wire-schemas.js';
import { ResponsesRequestSchema } from './responses/responses-request.js';

/** Same success, the same data (deep, not by key order), the same issues as `schema.safeParse`. */
function expectZodsAnswer(schema: z.ZodType, value: unknown): void {
  const ours = fastSafeParser(schema)(value);
  const zods = schema.safeParse(value);
  expect(ours.success).toBe(zods.success);
  if (ours.success && zods.success) expect(ours.data).toEqual(zods.data);
  else expect(ours.error?.issues).toStrictEqual(zods.error?.issues);
}

const messages = [{ role: 'user', content: 'hi' }];

/** Bodies as a client sends them (JSON text), so `__proto__` is an own key as after JSON.parse. */
const requests: Array<[string, string, 'fast' | 'zod']> = [
  ['minimal', JSON.stringify({ model: 'm', messages }), 'fast'],
  ['fields in another order than the schema', JSON.stringify({ max_tokens: 64, messages, stream: true, model: 'm' }), 'fast'],
  [
    'many fields',
    JSON.stringify({
      model: 'm',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'done' },
      ],
      temperature: 0.2,
      top_p: 0.9,
      stop: ['x', 'y'],
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
      tool_choice: 'auto',
      response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'object' } } },
      metadata: { team: 'a' },
      safety_settings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }],
      reasoning_effort: 'low',
    }),
    'fast',
  ],
  ['nulls where the schema takes them', JSON.stringify({ model: 'm', messages, max_tokens: null, stop: null, seed: null }), 'fast'],
  ['a field out of range', JSON.stringify({ model: 'm', messages, temperature: 3 }), 'zod'],
  ['two fields refused (zod reports both, in schema order)', JSON.stringify({ top_p: 2, model: 'm', messages, temperature: 3 }), 'zod'],
  ['an unknown key', JSON.stringify({ model: 'm', messages, bogus: 1 }), 'zod'],
  ['an unknown key and a bad field', JSON.stringify({ bogus: 1, model: 'm', messages, n: 0 }), 'zod'],
  ['__proto__ as a key', '{"model":"m","messages":[{"role":"user","content":"hi"}],"__proto__":{"x":1}}', 'zod'],
  ['model absent', JSON.stringify({ messages }), 'zod'],
  ['messages absent', JSON.stringify({ model: 'm' }), 'zod'],
  ['no messages (min 1)', JSON.stringify({ model: 'm', messages: [] }), 'zod'],
  [
    'a refinement inside a field',
    JSON.stringify({
      model: 'm',
      messages,
      safety_settings: [
        { category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' },
        { category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'OFF' },
      ],
    }),
    'zod',
  ],
  ['a bad nested message', JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x', extra: true }] }), 'zod'],
  ['an unknown role', JSON.stringify({ model: 'm', messages: [{ role: 'robot', content: 'x' }] }), 'zod'],
  ['a number where a string belongs', JSON.stringify({ model: 7, messages }), 'zod'],
  ['an empty object', '{}', 'zod'],
  ['an array', '[]', 'zod'],
  ['null', 'null', 'zod'],
];

describe('fastSafeParser on the chat request schema', () => {
  it.each(requests)('answers what zod answers: %s', (_name, text) => {
    expectZodsAnswer(ChatCompletionRequestSchema, JSON.parse(text));
  });

  it.each(requests)('takes the fast path exactly for plainly valid bodies: %s', (_name, text, path) => {
    expect(plainlyValid(ChatCompletionRequestSchema, JSON.parse(text))).toBe(path === 'fast');
  });

  it('answers with the body itself, not a copy', () => {
    const body = JSON.parse(requests[0]![1]) as object;
    const result = fastSafeParser(ChatCompletionRequestSchema)(body);
    expect(result.success && result.data).toBe(body);
  });

  it('answers every one-field change of a full request as zod does', () => {
    // Each leaf of the "many fields" body replaced by values of other types, removed, or joined by an unknown key.
    const base = JSON.parse(requests[2]![1]) as Record<string, unknown>;
    const replacements: unknown[] = [null, 0, -1, 2.5, 3, '', 'x', true, [], {}, [1], { a: 1 }];
    let cases = 0;
    for (const variant of variants(base, replacements)) {
      expectZodsAnswer(ChatCompletionRequestSchema, variant);
      cases++;
    }
    expect(cases).toBeGreaterThan(500);
  });
});

/** Every copy of `value` with one node replaced, removed or given an unknown key. */
function* variants(value: unknown, replacements: unknown[]): Generator<unknown> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      for (const inner of [...replacements, ...variants(value[i], replacements)]) yield value.map((v, j) => (j === i ? inner : v));
      yield value.filter((_, j) => j !== i);
    }
  } else if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    yield { ...value, unexpected_key: 1 };
    for (const [key, inner] of entries) {
      for (const next of [...replacements, ...variants(inner, replacements)]) yield { ...value, [key]: next };
      yield Object.fromEntries(entries.filter(([k]) => k !== key));
    }
  }
}

const answer = {
  candidates: [
    {
      content: { parts: [{ text: 'Echo: hello' }, { functionCall: { name: 'f', args: { a: 1 }, id: 'x' } }], role: 'model' },
      finishReason: 'STOP',
      index: 0,
      avgLogprobs: -0.5,
      safetyRatings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' }],
    },
  ],
  usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 3, totalTokenCount: 5, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 2 }] },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'r1',
};

describe('fastSafeParser on Gemini answers (loose objects keep unknown keys)', () => {
  it('takes the fast path for an answer, unknown fields and all, and answers it as zod does', () => {
    expect(plainlyValid(WireResponse, answer)).toBe(true);
    expectZodsAnswer(WireResponse, answer);
  });

  it('answers every one-field change of an answer as zod does', () => {
    for (const variant of variants(answer, [null, 1.5, 'x', false, [], {}])) expectZodsAnswer(WireResponse, variant);
  });
});

describe('fastSafeParser on the other doors’ bodies', () => {
  it.each<[string, z.ZodType, unknown, 'fast' | 'zod']>([
    ['embeddings, one text', EmbeddingsRequestSchema, { model: 'm', input: 'hello' }, 'fast'],
    ['embeddings, texts and options', EmbeddingsRequestSchema, { model: 'm', input: ['a', 'b'], dimensions: 256, encoding_format: 'float' }, 'fast'],
    ['embeddings, token ids', EmbeddingsRequestSchema, { model: 'm', input: [[1, 2], [3]] }, 'fast'],
    ['Responses, text input', ResponsesRequestSchema, { model: 'm', input: 'hi', instructions: 'be brief', stream: true, temperature: 0.5 }, 'fast'],
    // Input items pass a preprocess (an "easy" message gains its `type`): zod's to answer.
    ['Responses, input items', ResponsesRequestSchema, { model: 'm', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }] }, 'zod'],
  ])('answers as zod does, by the expected path: %s', (_name, schema, body, path) => {
    expect(plainlyValid(schema, body)).toBe(path === 'fast');
    expectZodsAnswer(schema, body);
    for (const variant of variants(body, [null, -1, 0.5, '', 'x', [], {}])) expectZodsAnswer(schema, variant);
  });
});

describe('fastSafeParser on constructs it does not mirror', () => {
  it.each<[string, z.ZodType, unknown[]]>([
    ['a default', z.object({ a: z.string().default('x') }), [{}, { a: 'y' }, { a: 1 }]],
    ['a transform', z.object({ a: z.string().transform((s) => s.length) }), [{ a: 'abc' }, { a: 1 }]],
    ['trim (a check that rewrites)', z.object({ a: z.string().trim() }), [{ a: ' x ' }, { a: 'x' }]],
    ['a stripping object with an unknown key', z.object({ a: z.string() }), [{ a: 'x', b: 1 }, { a: 'x' }]],
    ['an optional of a default', z.object({ a: z.string().default('d').optional() }), [{}, { a: 'x' }]],
    ['a pipe', z.object({ a: z.string().pipe(z.coerce.number()) }), [{ a: '12' }]],
    ['a coercion', z.object({ a: z.coerce.number() }), [{ a: '12' }, { a: 12 }]],
    ['xor', z.xor([z.string(), z.string().min(2)]), ['abc', 'a']],
    ['a union whose first option strips', z.union([z.object({ a: z.string() }), z.looseObject({ a: z.string() })]), [{ a: 'x', b: 1 }]],
    ['a record with checked keys', z.record(z.string().min(2), z.number()), [{ ab: 1 }, { a: 1 }]],
    ['a record with a constructor key', z.record(z.string(), z.unknown()), [{ constructor: 1 }, { constructor: {} }]],
    ['a lazy schema', z.object({ a: z.lazy(() => z.string()) }), [{ a: 'x' }, { a: 1 }]],
  ])('answers %s through zod, as zod does', (_name, schema, values) => {
    for (const value of values) {
      expectZodsAnswer(schema, value);
      const zods = schema.safeParse(value);
      // Wherever zod's output differs from the input, the fast path was not taken.
      if (zods.success && !isDeepStrictEqual(zods.data, value)) expect(plainlyValid(schema, value)).toBe(false);
    }
  });

  it('runs checks as zod does, refinements across fields included', () => {
    const schema = z
      .strictObject({ low: z.number().int().min(0), high: z.number().max(10), tags: z.array(z.string().regex(/^[a-z]+$/)).max(2) })
      .refine((v) => v.low <= v.high, 'low above high');
    for (const value of [
      { low: 1, high: 2, tags: ['a'] },
      { low: 1.5, high: 2, tags: [] },
      { low: -1, high: 2, tags: [] },
      { low: 3, high: 2, tags: [] },
      { low: 1, high: 11, tags: [] },
      { low: 1, high: 2, tags: ['a', 'b', 'c'] },
      { low: 1, high: 2, tags: ['A'] },
    ]) {
      expectZodsAnswer(schema, value);
    }
    expect(plainlyValid(schema, { low: 1, high: 2, tags: ['a'] })).toBe(true);
  });

  it('tells optional from exactOptional for a key present as undefined (values a caller builds, not JSON)', () => {
    const schema = z.strictObject({ a: z.exactOptional(z.string()), b: z.string().optional() });
    for (const value of [{}, { a: 'x' }, { a: undefined }, { b: undefined }]) expectZodsAnswer(schema, value);
    expect(plainlyValid(schema, { b: undefined })).toBe(true);
  });

  it('leaves a class instance, which zod answers with a plain copy, to zod', () => {
    const schema = z.object({});
    const date = new Date(0);
    expect(plainlyValid(schema, date)).toBe(false);
    expect(fastSafeParser(schema)(date)).toStrictEqual(schema.safeParse(date));
    expect(plainlyValid(z.record(z.string(), z.number()), Object.assign(Object.create(null), { a: 1 }))).toBe(false);
  });

  it('keeps zod’s first-option rule in unions', () => {
    const schema = z.union([z.strictObject({ kind: z.literal('a'), n: z.number() }), z.strictObject({ kind: z.literal('a'), s: z.string() }), z.string()]);
    for (const value of [{ kind: 'a', n: 1 }, { kind: 'a', s: 'x' }, { kind: 'a' }, 'text', 5]) expectZodsAnswer(schema, value);
    expect(plainlyValid(schema, { kind: 'a', s: 'x' })).toBe(true);
  });
});
