/**
 * Prompt routes through the real app and the official `openai` SDK (`client.post`), with the
 * Gemini emulator upstream: what the caller gets and what the emulator received.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { Stream } from 'openai/streaming';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { openPromptStore, type PromptStore } from '../../src/prompts/prompt-store.js';
import { createTelemetry } from '../../src/telemetry/create-telemetry.js';
import { GATEWAY_KEY, PROVIDER_KEY, startHarness, type Harness } from './harness.js';

const ADMIN_KEY = 'admin-key-0123456789abcdef';

let h: Harness;
let dir: string;
let store: PromptStore;
let admin: OpenAI;

async function put(path: string, content: unknown): Promise<void> {
  await mkdir(join(dir, path, '..'), { recursive: true });
  await writeFile(join(dir, path), typeof content === 'string' ? content : JSON.stringify(content));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sidegate-prompts-it-'));
  await put('support/1.yaml', [
    'model: gemini-2.5-flash',
    'params:',
    '  temperature: 0.2',
    '  max_tokens: 64',
    'variables:',
    '  product: {description: "product name"}',
    '  tone: {default: friendly}',
    'messages:',
    '  - role: system',
    '    content: "You support {{product}}. Be {{tone}}.{{#vip}} The customer is a VIP.{{/vip}}"',
    '  - role: user',
    '    content: "{{question}}"',
    '',
  ].join('\n'));
  await put('support/labels.json', { production: 1 });
  await put('broken/1.json', { messages: [{ role: 'user', content: '{{#x}}' }] });
  store = await openPromptStore({ dir, logger: { warn: () => {} }, pollIntervalMs: 60_000 });
  h = await startHarness({ adminKey: ADMIN_KEY }, { prompts: store });
  admin = new OpenAI({ baseURL: `${h.gateway.url}/v1`, apiKey: ADMIN_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await h?.close();
  store?.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => h.emulator.reset());

/** What the gateway sent upstream on the last call. */
function upstream() {
  const last = h.emulator.requests.at(-1)!;
  return { path: last.path, body: last.body as { contents: unknown; systemInstruction: unknown; generationConfig: Record<string, unknown> } };
}

async function apiError(p: Promise<unknown>): Promise<{ status: number; param: unknown; code: unknown; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OpenAI.APIError) {
      const e = err.error as { param?: unknown; code?: unknown; message?: string };
      return { status: err.status ?? 0, param: e.param, code: e.code, message: e.message ?? '' };
    }
    throw err;
  }
  throw new Error('call succeeded');
}

describe('POST /v1/prompts/{id}/completions', () => {
  it('renders the template, merges overrides over its params, and answers like a chat completion', async () => {
    const res = await h.client.post<ChatCompletion>('/prompts/support/completions', {
      body: { variables: { product: 'Sidegate', question: 'How do I <restart> it?', vip: true }, max_tokens: 32 },
    });
    expect(res.object).toBe('chat.completion');
    expect(res.choices[0]?.message.role).toBe('assistant');
    const sent = upstream();
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent.body.systemInstruction).toStrictEqual({ parts: [{ text: 'You support Sidegate. Be friendly. The customer is a VIP.' }] });
    expect(sent.body.contents).toStrictEqual([{ role: 'user', parts: [{ text: 'How do I <restart> it?' }] }]);
    expect(sent.body.generationConfig).toMatchObject({ temperature: 0.2, maxOutputTokens: 32 });
  });

  it('streams when asked, and appends the caller messages after the rendered ones', async () => {
    const stream = await h.client.post<Stream<ChatCompletionChunk>>('/prompts/support/completions', {
      body: {
        variables: { product: 'Sidegate', question: 'first' },
        stream: true,
        messages: [
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'second' },
        ],
      },
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    expect(upstream().path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(upstream().body.contents).toStrictEqual([
      { role: 'user', parts: [{ text: 'first' }] },
      { role: 'model', parts: [{ text: 'ok' }] },
      { role: 'user', parts: [{ text: 'second' }] },
    ]);
  });

  it('reports cached tokens (implicit caching) in the usage, streamed and not (issue 23 row 7)', async () => {
    const cached = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 3000, cachedContentTokenCount: 2048, candidatesTokenCount: 1, totalTokenCount: 3001 },
      modelVersion: 'gemini-2.5-flash',
    };
    const body = { variables: { product: 'Sidegate', question: 'q' } };
    h.emulator.enqueue({ status: 200, body: cached });
    const res = await h.client.post<ChatCompletion>('/prompts/support/completions', { body });
    expect(res.usage?.prompt_tokens_details?.cached_tokens).toBe(2048);
    h.emulator.enqueue({ chunks: [{ data: cached }] });
    const stream = await h.client.post<Stream<ChatCompletionChunk>>('/prompts/support/completions', {
      body: { ...body, stream: true, stream_options: { include_usage: true } },
      stream: true,
    });
    let usage: ChatCompletionChunk['usage'];
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    expect(usage?.prompt_tokens_details?.cached_tokens).toBe(2048);
  });

  it('errors name what is missing or unknown, and nothing goes upstream', async () => {
    const call = (id: string, body: Record<string, unknown>) => apiError(h.client.post(`/prompts/${id}/completions`, { body }));
    expect(await call('support', { variables: { question: 'q' } })).toMatchObject({ status: 400, param: 'variables.product', code: 'missing_variable' });
    expect(await call('support', { variables: { product: 'p', question: 'q', colour: 'red' } })).toMatchObject({
      status: 400,
      param: 'variables.colour',
      code: 'unknown_variable',
    });
    expect(await call('nope', { variables: {} })).toMatchObject({ status: 404, code: 'prompt_not_found', message: "No prompt named 'nope'" });
    expect(await call('support', { version: 9 })).toMatchObject({ status: 404, param: 'version', message: "Prompt 'support' has no version 9" });
    expect(await call('support', { label: 'canary' })).toMatchObject({ status: 404, param: 'label', message: "Prompt 'support' has no label 'canary'" });
    expect(await call('support', { version: 1, label: 'production' })).toMatchObject({ status: 400, param: 'label' });
    expect(await call('broken', {})).toMatchObject({ status: 404, code: 'prompt_not_found' });
    expect(await call('support', { variables: { product: 'p', question: 'q' }, temprature: 1 })).toMatchObject({
      status: 400,
      param: 'temprature',
      code: 'unknown_parameter',
    });
    expect(await call('support', { variables: { product: 'p', question: 'q' }, temperature: 7 })).toMatchObject({ status: 400, param: 'temperature' });
    expect(h.emulator.requests).toHaveLength(0);
  });

  it.each([
    { capture: 'false', variables: undefined },
    { capture: 'true', variables: '{"tone":"friendly","product":"Sidegate","question":"q"}' },
  ])('puts gateway.prompt.* on the request span (variables only with content capture: $capture)', async ({ capture, variables }) => {
    const exporter = new InMemorySpanExporter();
    const telemetry = createTelemetry({
      env: { OTEL_METRICS_EXPORTER: 'none', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: capture },
      logger: () => {},
      spanProcessorOverride: new SimpleSpanProcessor(exporter),
    });
    const traced = await startHarness({}, { prompts: store, telemetry });
    let spans;
    try {
      await traced.client.post('/prompts/support/completions', { body: { label: 'production', variables: { product: 'Sidegate', question: 'q' } } });
      await traced.client.post('/prompts/support/completions', { body: { version: 1, variables: { product: 'Sidegate', question: 'q' } } });
      spans = exporter.getFinishedSpans(); // before close: shutting the exporter down empties it
    } finally {
      await traced.close();
    }
    const servers = spans.filter((s) => s.kind === SpanKind.SERVER);
    expect(servers).toHaveLength(2);
    expect(servers[0]!.attributes).toMatchObject({
      'gateway.prompt.id': 'support',
      'gateway.prompt.version': 1,
      'gateway.prompt.label': 'production',
      'http.route': '/v1/prompts/{id}/completions',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gen_ai.request.temperature': 0.2,
    });
    expect(servers[0]!.attributes['gateway.prompt.variables']).toStrictEqual(variables);
    expect(servers[1]!.attributes['gateway.prompt.label']).toBeUndefined();
    // The attempt is a child of the prompt call's request span, as for any chat completion.
    const attempt = spans.find((s) => s.kind === SpanKind.CLIENT)!;
    expect(attempt.parentSpanContext?.spanId).toBe(servers[0]!.spanContext().spanId);
  });

  it('works through sidegate/client, whose tracing options reach the prompt call like a chat call', async () => {
    const exporter = new InMemorySpanExporter();
    const telemetry = createTelemetry({ env: { OTEL_METRICS_EXPORTER: 'none' }, logger: () => {}, spanProcessorOverride: new SimpleSpanProcessor(exporter) });
    const traced = await startHarness({}, { prompts: store, telemetry });
    try {
      const c = createClient({
        apiKey: GATEWAY_KEY,
        baseURL: `${traced.gateway.url}/v1`,
        provider: 'google',
        providerKey: PROVIDER_KEY,
        traceId: 'prompt-run-1',
        spanName: 'support reply',
        metadata: { team: 'care' },
        clientOptions: { maxRetries: 0 },
      });
      const res = await c.post<ChatCompletion>('/prompts/support/completions', { body: { variables: { product: 'Sidegate', question: 'hi' } } });
      expect(res.choices[0]?.message.content).toBeTruthy();
      const server = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER)!;
      expect(server.name).toBe('support reply');
      expect(server.attributes).toMatchObject({
        'gateway.trace_id': 'prompt-run-1',
        'gateway.metadata.team': 'care',
        'gateway.prompt.id': 'support',
        'gateway.prompt.version': 1,
      });
    } finally {
      await traced.close();
    }
  });

  it('needs the gateway key', async () => {
    const res = await fetch(`${h.gateway.url}/v1/prompts/support/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
  });
});

describe('POST /v1/prompts/{id}/render', () => {
  it('returns the chat-completions body without calling anyone', async () => {
    const res = await h.client.post('/prompts/support/render', { body: { label: 'production', variables: { product: 'X', question: 'Why?' }, stream: true } });
    expect(res).toStrictEqual({
      model: 'gemini-2.5-flash',
      temperature: 0.2,
      max_tokens: 64,
      stream: true,
      messages: [
        { role: 'system', content: 'You support X. Be friendly.' },
        { role: 'user', content: 'Why?' },
      ],
    });
    expect(h.emulator.requests).toHaveLength(0);
  });
});

describe('admin API and labels', () => {
  it('is 404 without the admin key configured, 401 with a wrong key', async () => {
    expect((await apiError(h.client.get('/prompts'))).status).toBe(401);
    const off = await startHarness({}, { prompts: store });
    try {
      expect((await fetch(`${off.gateway.url}/v1/prompts`, { headers: { 'x-gateway-api-key': ADMIN_KEY } })).status).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('lists prompts and the files it does not serve', async () => {
    const list = await admin.get<{ data: unknown[]; problems: unknown[]; read_only: boolean }>('/prompts');
    expect(list.data).toContainEqual({ object: 'prompt', id: 'support', latest_version: 1, versions: [1], labels: { production: 1 } });
    expect(list.problems).toContainEqual({ file: 'broken/1.json', path: 'messages[0].content', message: 'invalid Mustache: Unclosed section "x" at 6' });
    expect(list.read_only).toBe(false);
  });

  it('a label switched from version 1 to 2 while serving changes the next call', async () => {
    const body = { label: 'production', variables: { product: 'Sidegate', question: 'hi' } };
    await h.client.post('/prompts/support/completions', { body });
    expect(upstream().body.systemInstruction).toStrictEqual({ parts: [{ text: 'You support Sidegate. Be friendly.' }] });

    const created = await admin.post<{ id: string; version: number }>('/prompts', {
      body: {
        id: 'support',
        model: 'gemini-2.5-pro',
        variables: { product: {}, question: {} },
        messages: [
          { role: 'system', content: 'v2 for {{product}}' },
          { role: 'user', content: '{{question}}' },
        ],
      },
    });
    expect(created).toMatchObject({ object: 'prompt', id: 'support', version: 2 });
    // Latest is 2 now, but the label still says 1.
    await h.client.post('/prompts/support/completions', { body });
    expect(upstream().path).toContain('gemini-2.5-flash');

    const labels = await admin.put('/prompts/support/labels', { body: { production: 2, previous: 1 } });
    expect(labels).toStrictEqual({ object: 'prompt.labels', id: 'support', labels: { production: 2, previous: 1 } });
    await h.client.post('/prompts/support/completions', { body });
    expect(upstream().path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    expect(upstream().body.systemInstruction).toStrictEqual({ parts: [{ text: 'v2 for Sidegate' }] });

    expect(await admin.get('/prompts/support?label=previous')).toMatchObject({ id: 'support', version: 1, labels: { production: 2, previous: 1 } });
    expect(await admin.get('/prompts/support?version=2')).toMatchObject({ version: 2, model: 'gemini-2.5-pro' });
    expect(await admin.get('/prompts/support')).toMatchObject({ version: 2 });

    // Versions are immutable: asking for an existing number is a conflict.
    expect(await apiError(admin.post('/prompts', { body: { id: 'support', version: 2, messages: [{ role: 'user', content: 'x' }] } }))).toMatchObject({
      status: 409,
      code: 'prompt_version_conflict',
    });
  });

  it('a label changed in the file on disk changes the next call too', async () => {
    await put('support/labels.json', { production: 1 });
    await store.reload();
    const body = { label: 'production', variables: { product: 'S', question: 'hi' } };
    await h.client.post('/prompts/support/completions', { body });
    expect(upstream().path).toContain('gemini-2.5-flash');
    await put('support/labels.json', { production: 2 });
    // The directory watcher (or the next poll) picks it up; no call to reload here.
    await vi.waitFor(() => expect(store.list().find((p) => p.id === 'support')?.labels).toStrictEqual({ production: 2 }), {
      timeout: 10_000,
      interval: 20,
    });
    await h.client.post('/prompts/support/completions', { body });
    expect(upstream().path).toContain('gemini-2.5-pro');
  });

  it('refuses an invalid template with its JSON path', async () => {
    expect(await apiError(admin.post('/prompts', { body: { id: 'x', messages: [{ role: 'user', content: 'a' }], params: { temperature: 3 } } }))).toMatchObject({
      status: 400,
      param: 'params.temperature',
      code: 'invalid_prompt',
    });
  });
});
