/**
 * Strict compliance (issue 3 item 9, DESIGN Decision 9): `x-gateway-strict-compliance` defaults to
 * true; `"false"` adds exactly `thought_signature`, `content_parts`, `content_blocks` and
 * grounding metadata. The same request is sent with and without the header and the two answers
 * are diffed: every difference must sit under one of those four keys, and the upstream requests
 * must be identical.
 */
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { collect, NON_STRICT } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const EXTRA_KEYS = new Set(['thought_signature', 'content_parts', 'content_blocks', 'groundingMetadata']);

/** Per-call values (ids, timestamps) that differ between any two calls. */
function normalize(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => normalize(v));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, k)]));
  }
  if (key === 'id' && typeof value === 'string') return value.startsWith('chatcmpl-') ? 'chatcmpl-*' : value.replace(/^call-.*/, 'call-*');
  if (key === 'created') return 0;
  return value;
}

/** JSON paths where `a` and `b` differ (a key present in only one counts). */
function diffPaths(a: unknown, b: unknown, path = '$'): string[] {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => diffPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`));
  }
  return Object.is(a, b) ? [] : [path];
}

/** The key under which a differing path sits, if it is one of the four extras. */
const extraKeyOf = (path: string) => path.split('.').find((segment) => EXTRA_KEYS.has(segment));

/** Removes the four extra keys anywhere in a value. */
function stripExtras(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripExtras);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !EXTRA_KEYS.has(k)).map(([k, v]) => [k, stripExtras(v)]));
  }
  return value;
}

/** Chunks after stripping: those left with nothing to say (empty delta, no finish, no usage) are dropped. */
function meaningful(chunks: ChatCompletionChunk[]): unknown[] {
  return (normalize(stripExtras(chunks)) as ChatCompletionChunk[]).filter(
    (c) => c.usage != null || c.choices.some((ch) => ch.finish_reason !== null || Object.keys(ch.delta).length > 0),
  );
}

const scenarios = [
  {
    name: 'thinking + code execution + search grounding + text signature (Gemini 3)',
    request: {
      model: 'gemini-3-flash-preview',
      messages: [{ role: 'user', content: 'compute and search' }],
      tools: [{ type: 'code_execution' }, { type: 'function', function: { name: 'grounding_search' } }],
      thinking: { type: 'enabled' },
    },
    extras: ['content_blocks', 'content_parts', 'groundingMetadata', 'thought_signature'],
  },
  {
    name: 'function call with a signature (Gemini 3)',
    request: {
      model: 'gemini-3-flash-preview',
      messages: [{ role: 'user', content: 'call get_time now' }],
      tools: [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } }],
    },
    extras: ['thought_signature'],
  },
  {
    name: 'image generation (Gemini 3 image model)',
    request: { model: 'gemini-3-pro-image-preview', messages: [{ role: 'user', content: 'a cube' }], modalities: ['text', 'image'] },
    // The signed image is the last part, so its signature is also the message's (convert-parts.ts).
    extras: ['content_parts', 'thought_signature'],
  },
];

describe('strict and non-strict answers to the same request', () => {
  it.each(scenarios)('$name: differ only in the four extra fields', async ({ request, extras }) => {
    const strict = await h.client.chat.completions.create(request as never);
    const loose = await h.client.chat.completions.create(request as never, NON_STRICT);
    expect(h.emulator.requests[1]!.body).toStrictEqual(h.emulator.requests[0]!.body);

    const paths = diffPaths(normalize(strict), normalize(loose));
    expect(paths.length).toBeGreaterThan(0);
    for (const p of paths) expect(extraKeyOf(p), p).toBeDefined();
    // Every extra the scenario produces appears, and only in the non-strict answer.
    expect([...new Set(paths.map(extraKeyOf))].sort()).toStrictEqual([...extras].sort());
    expect(JSON.stringify(strict)).not.toMatch(/thought_signature|content_parts|content_blocks|groundingMetadata/);
    expect(normalize(stripExtras(loose))).toStrictEqual(normalize(strict));
  });

  it.each(scenarios)('$name: streamed, differ only in the four extra fields', async ({ request, extras }) => {
    const body = { ...request, stream: true, stream_options: { include_usage: true } };
    const strict = await collect(await h.client.chat.completions.create(body as never));
    const loose = await collect(await h.client.chat.completions.create(body as never, NON_STRICT));
    expect(h.emulator.requests[1]!.body).toStrictEqual(h.emulator.requests[0]!.body);

    expect(JSON.stringify(strict)).not.toMatch(/thought_signature|content_parts|content_blocks|groundingMetadata/);
    const seen = new Set<string>();
    const visit = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(visit);
      else if (v !== null && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (EXTRA_KEYS.has(k)) seen.add(k);
          visit(x);
        }
      }
    };
    visit(loose);
    expect([...seen].sort()).toStrictEqual([...extras].sort());
    expect(meaningful(loose)).toStrictEqual(meaningful(strict));
  });

  it('treats a missing header as strict, and the x-portkey alias like ours', async () => {
    const request = { model: 'gemini-3-flash-preview', messages: [{ role: 'user' as const, content: 'hi' }] };
    const byDefault = await h.client.chat.completions.create(request);
    expect(byDefault.choices[0]!.message).not.toHaveProperty('thought_signature');
    const explicit = await h.client.chat.completions.create(request, { headers: { 'x-gateway-strict-compliance': 'true' } });
    expect(explicit.choices[0]!.message).not.toHaveProperty('thought_signature');
    const alias = await h.client.chat.completions.create(request, { headers: { 'x-portkey-strict-open-ai-compliance': 'false' } });
    expect(alias.choices[0]!.message).toHaveProperty('thought_signature');
  });
});
