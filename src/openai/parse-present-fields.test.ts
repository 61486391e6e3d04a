import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChatCompletionRequestSchema } from './chat-request.js';
import { presentFieldsParser } from './parse-present-fields.js';

const parse = presentFieldsParser(ChatCompletionRequestSchema);
const messages = [{ role: 'user', content: 'hi' }];

/** Bodies as a client sends them (JSON text), so `__proto__` is an own key as after JSON.parse. */
const bodies: Array<[string, string]> = [
  ['minimal', JSON.stringify({ model: 'm', messages })],
  ['fields in another order than the schema', JSON.stringify({ max_tokens: 64, messages, stream: true, model: 'm' })],
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
  ],
  ['nulls where the schema takes them', JSON.stringify({ model: 'm', messages, max_tokens: null, stop: null, seed: null })],
  ['a field out of range', JSON.stringify({ model: 'm', messages, temperature: 3 })],
  ['two fields refused (zod reports both, in schema order)', JSON.stringify({ top_p: 2, model: 'm', messages, temperature: 3 })],
  ['an unknown key', JSON.stringify({ model: 'm', messages, bogus: 1 })],
  ['an unknown key and a bad field', JSON.stringify({ bogus: 1, model: 'm', messages, n: 0 })],
  ['__proto__ as a key', '{"model":"m","messages":[{"role":"user","content":"hi"}],"__proto__":{"x":1}}'],
  ['model absent', JSON.stringify({ messages })],
  ['messages absent', JSON.stringify({ model: 'm' })],
  ['a refinement inside a field', JSON.stringify({ model: 'm', messages, safety_settings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }, { category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'OFF' }] })],
  ['a bad nested message', JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x', extra: true }] })],
  ['an empty object', '{}'],
];

describe('presentFieldsParser', () => {
  it.each(bodies)('answers what zod answers: %s', (_name, text) => {
    const ours = parse(JSON.parse(text) as Record<string, unknown>);
    const zods = ChatCompletionRequestSchema.safeParse(JSON.parse(text));
    expect(ours.success).toBe(zods.success);
    if (ours.success && zods.success) {
      expect(ours.data).toStrictEqual(zods.data);
      expect(Object.keys(ours.data)).toStrictEqual(Object.keys(zods.data));
    } else {
      expect(ours.error?.issues).toStrictEqual(zods.error?.issues);
    }
  });

  it('keeps the schema field order in its answer, whatever order the client used', () => {
    const result = parse({ stream: false, messages, model: 'm' });
    expect(result.success && Object.keys(result.data)).toStrictEqual(['model', 'messages', 'stream']);
  });

  it('drops an unknown key like zod for a schema that strips them', () => {
    const Stripping = z.object({ a: z.string(), b: z.number().optional() });
    const result = presentFieldsParser(Stripping)({ a: 'x', extra: 1 });
    expect(result).toStrictEqual(Stripping.safeParse({ a: 'x', extra: 1 }));
    expect(result.success && result.data).toStrictEqual({ a: 'x' });
  });

  it.each([
    ['a check across fields', z.strictObject({ a: z.number().optional(), b: z.number().optional() }).refine((v) => v.a !== v.b)],
    ['a catch-all', z.looseObject({ a: z.string() })],
    ['a defaulted field', z.strictObject({ a: z.string().default('x') })],
  ])('refuses a schema it cannot mirror: %s', (_name, schema) => {
    expect(() => presentFieldsParser(schema as unknown as z.ZodObject<z.ZodRawShape>)).toThrow(/presentFieldsParser/);
  });
});
