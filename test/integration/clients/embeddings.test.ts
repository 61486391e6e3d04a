/**
 * `POST /v1/embeddings` through the official `openai` SDK → gateway → Gemini emulator, with the
 * real OTel SDK exporting into memory: the answer, the exact batchEmbedContents request the
 * emulator got, the spans (request `embeddings {model}`, attempts with usage), routing configs
 * (retry and fallback), and the errors.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleError } from '../../../src/emulator/index.js';
import { config, startRoutingHarness, type RoutingHarness } from '../routing/routing-harness.js';

let h: RoutingHarness;
beforeAll(async () => {
  h = await startRoutingHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const MODEL = 'gemini-embedding-001';
const embedCalls = () => h.emulator.requests.filter((r) => r.rpc === 'batchEmbedContents');
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
  );

describe('POST /v1/embeddings', () => {
  it('embeds a string: the exact upstream request, the answer, the spans', async () => {
    const { data, response } = await h.client.embeddings.create({ model: MODEL, input: 'The cat sat on the mat', encoding_format: 'float' }).withResponse();
    expect(data.object).toBe('list');
    expect(data.model).toBe(MODEL);
    expect(data.data).toHaveLength(1);
    expect(data.data[0]!.index).toBe(0);
    expect(data.data[0]!.embedding).toHaveLength(3072);
    expect(data.usage).toStrictEqual({ prompt_tokens: 6, total_tokens: 6 });
    expect(embedCalls().map((c) => c.body)).toStrictEqual([
      { requests: [{ model: `models/${MODEL}`, content: { parts: [{ text: 'The cat sat on the mat' }] } }] },
    ]);
    expect(embedCalls()[0]!.path).toBe(`/v1beta/models/${MODEL}:batchEmbedContents`);

    const tp = response.headers.get('traceparent');
    const request = h.requestSpan(tp);
    expect(request.name).toBe(`embeddings ${MODEL}`);
    expect(request.attributes['gen_ai.operation.name']).toBe('embeddings');
    expect(request.attributes['gen_ai.request.model']).toBe(MODEL);
    expect(request.attributes['http.route']).toBe('/v1/embeddings');
    const [attempt, ...more] = h.attempts(tp);
    expect(more).toHaveLength(0);
    expect(attempt!.name).toBe(`embeddings ${MODEL}`);
    expect(attempt!.attributes['gen_ai.operation.name']).toBe('embeddings');
    expect(attempt!.attributes['gen_ai.provider.name']).toBe('gcp.gemini');
    expect(attempt!.attributes['gen_ai.usage.input_tokens']).toBe(6);
    expect(attempt!.attributes['gateway.cost.usd']).toBeCloseTo((6 * 0.15) / 1e6, 12);
    expect(attempt!.attributes['http.response.status_code']).toBe(200);
    expect(attempt!.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    // The attempt's context went upstream.
    expect(embedCalls()[0]!.headers.traceparent).toContain(attempt!.spanContext().spanId);
  });

  it('embeds an array with dimensions; the SDK default (base64) decodes to the same floats', async () => {
    const input = ['first document', 'second document'];
    const floats = await h.client.embeddings.create({ model: MODEL, input, dimensions: 8, encoding_format: 'float' });
    const viaBase64 = await h.client.embeddings.create({ model: MODEL, input, dimensions: 8 });
    expect(floats.data.map((d) => d.embedding.length)).toStrictEqual([8, 8]);
    expect(viaBase64.data.map((d) => d.embedding)).toStrictEqual(floats.data.map((d) => d.embedding));
    const bodies = embedCalls().map((c) => c.body as { requests: Array<{ outputDimensionality?: number }> });
    expect(bodies[0]!.requests.map((r) => r.outputDimensionality)).toStrictEqual([8, 8]);
    // What goes over the wire for base64 is OpenAI's encoding (little-endian float32).
    const raw = (await (
      await fetch(`${h.gateway.url}/v1/embeddings`, {
        method: 'POST',
        headers: h.headers,
        body: JSON.stringify({ model: MODEL, input: 'first document', dimensions: 8, encoding_format: 'base64' }),
      })
    ).json()) as { data: Array<{ embedding: string }> };
    const buf = Buffer.from(raw.data[0]!.embedding, 'base64');
    expect(Array.from(new Float32Array(buf.buffer, buf.byteOffset, 8))).toStrictEqual(floats.data[0]!.embedding);
  });

  it('splits 250 inputs into three upstream calls in one attempt, indexes in order', async () => {
    const input = Array.from({ length: 250 }, (_, i) => `item ${i}`);
    const { data, response } = await h.client.embeddings.create({ model: MODEL, input, dimensions: 4 }).withResponse();
    expect(data.data.map((d) => d.index)).toStrictEqual(input.map((_, i) => i));
    expect(embedCalls().map((c) => (c.body as { requests: unknown[] }).requests.length)).toStrictEqual([100, 100, 50]);
    expect(h.attempts(response.headers.get('traceparent'))).toHaveLength(1);
  });

  it('is routed by the same configs: a 429 retried, then a fallback to another model', async () => {
    h.emulator.enqueue(
      { status: 429, body: googleError(429, undefined, { retryDelay: '0s' }) },
      { status: 503, body: googleError(503) },
    );
    const cfg = config({
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'google', override_params: { model: 'gemini-embedding-2' }, retry: { attempts: 1 } },
        { provider: 'google', override_params: { model: MODEL } },
      ],
    });
    const { data, response } = await h.client.embeddings.create({ model: 'my-embedder', input: 'hello', encoding_format: 'float' }, { headers: cfg }).withResponse();
    expect(data.model).toBe('my-embedder');
    expect(response.headers.get('x-gateway-retry-attempt-count')).toBe('2');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(embedCalls().map((c) => c.model)).toStrictEqual(['gemini-embedding-2', 'gemini-embedding-2', MODEL]);
    const spans = h.attempts(response.headers.get('traceparent'));
    expect(spans.map((s) => [s.name, s.attributes['http.response.status_code'], s.status.code === SpanStatusCode.ERROR])).toStrictEqual([
      ['embeddings gemini-embedding-2', 429, true],
      ['embeddings gemini-embedding-2', 503, true],
      [`embeddings ${MODEL}`, 200, false],
    ]);
    expect(h.requestSpan(response.headers.get('traceparent')).name).toBe('embeddings my-embedder');
  });

  it.each([
    ['token ids', { model: MODEL, input: [1, 2, 3] }, 400, 'input'],
    ['an empty string', { model: MODEL, input: '' }, 400, 'input'],
    ['an unknown field', { model: MODEL, input: 'x', task_type: 'query' }, 400, 'task_type'],
    ['too many inputs', { model: MODEL, input: Array.from({ length: 2049 }, () => 'x') }, 400, 'input'],
    ['a bad encoding', { model: MODEL, input: 'x', encoding_format: 'int8' }, 400, 'encoding_format'],
  ])('400s %s naming the param, with nothing sent upstream', async (_name, body, status, param) => {
    const err = await failure(h.client.embeddings.create(body as never));
    expect(err.status).toBe(status);
    expect(err.param).toBe(param);
    expect(embedCalls()).toHaveLength(0);
  });

  it('relays the upstream 404 for a model that does not embed, as a failed attempt', async () => {
    const err = await failure(h.client.embeddings.create({ model: 'gemini-2.5-flash', input: 'x' }));
    expect(err.status).toBe(404);
    expect(err.message).toContain('not supported for batchEmbedContents');
    const attempts = h.exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
    expect(attempts.map((s) => s.attributes['error.type'])).toStrictEqual(['404']);
  });
});
