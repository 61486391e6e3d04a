import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { embedText, MAX_BATCH_REQUESTS } from './embed.js';
import { startEmulator, type Emulator } from './index.js';
import { KEY, post } from './test-helpers.js';

let emu: Emulator;
const batchUrl = (model = 'gemini-embedding-001') => `${emu.url}/v1beta/models/${model}:batchEmbedContents`;
const req = (text: string, extra: Record<string, unknown> = {}, model = 'models/gemini-embedding-001') => ({
  model,
  content: { parts: [{ text }] },
  ...extra,
});
const norm = (v: number[]) => Math.sqrt(v.reduce((n, x) => n + x * x, 0));
const dot = (a: number[], b: number[]) => a.reduce((n, x, i) => n + x * b[i]!, 0);

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe('embedText', () => {
  it('is deterministic, unit length at full size, and closer for texts sharing words', () => {
    const a = embedText('The cat sat on the mat');
    expect(a).toHaveLength(3072);
    expect(embedText('The cat sat on the mat')).toStrictEqual(a);
    expect(norm(a)).toBeCloseTo(1, 5);
    const near = embedText('where did the cat sit');
    const far = embedText('quarterly revenue grew eleven percent');
    expect(dot(a, near)).toBeGreaterThan(dot(a, far));
  });

  it('truncates without renormalising (only full-size vectors are normalised)', () => {
    const full = embedText('alpha beta gamma delta');
    const short = embedText('alpha beta gamma delta', 256);
    expect(short).toStrictEqual(full.slice(0, 256));
  });
});

describe('batchEmbedContents', () => {
  it('answers one embedding per request in order, with usage', async () => {
    const res = await post(batchUrl(), { requests: [req('hello world'), req('a second, longer text', { outputDimensionality: 8 })] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { embeddings: Array<{ values: number[] }>; usageMetadata: unknown };
    expect(body.embeddings.map((e) => e.values.length)).toStrictEqual([3072, 8]);
    expect(body.embeddings[0]!.values).toStrictEqual(embedText('hello world'));
    // ceil(11/4) + ceil(21/4) = 3 + 6
    expect(body.usageMetadata).toStrictEqual({ promptTokenCount: 9, promptTokenDetails: [{ modality: 'TEXT', tokenCount: 9 }] });
    expect(emu.requests[0]).toMatchObject({ rpc: 'batchEmbedContents', model: 'gemini-embedding-001' });
  });

  it('accepts snake_case names and task types case-insensitively', async () => {
    const res = await post(batchUrl(), { requests: [req('x', { task_type: 'retrieval_document', output_dimensionality: 4, title: 't' })] });
    expect(res.status).toBe(200);
  });

  it.each([
    ['an unknown field', { requests: [req('x', { dimensions: 4 })] }, 'Unknown name "dimensions"'],
    ['no requests', { requests: [] }, 'requests is not specified'],
    ['an empty text', { requests: [req('')] }, 'contents is not specified'],
    ['a model other than the URL one', { requests: [req('x', {}, 'models/gemini-embedding-2')] }, 'does not match'],
    ['too many dimensions', { requests: [req('x', { outputDimensionality: 4096 })] }, 'output_dimensionality'],
    ['a bad task type', { requests: [req('x', { taskType: 'NOPE' })] }, 'TaskType'],
    ['more than 100 requests', { requests: Array.from({ length: MAX_BATCH_REQUESTS + 1 }, () => req('x')) }, 'at most 100 requests can be in one batch'],
  ])('400s %s', async (_name, body, text) => {
    const res = await post(batchUrl(), body);
    expect(res.status).toBe(400);
    const err = (await res.json()) as { error: { status: string; message: string } };
    expect(err.error.status).toBe('INVALID_ARGUMENT');
    expect(err.error.message).toContain(text);
  });

  it('404s a generation model asked to embed, and an embedding model asked to generate', async () => {
    const a = await post(batchUrl('gemini-2.5-flash'), { requests: [req('x', {}, 'models/gemini-2.5-flash')] });
    expect(a.status).toBe(404);
    expect(((await a.json()) as { error: { message: string } }).error.message).toBe(
      'models/gemini-2.5-flash is not found for API version v1beta, or is not supported for batchEmbedContents. Call ListModels to see the list of available models and their supported methods.',
    );
    const b = await post(`${emu.url}/v1beta/models/gemini-embedding-001:generateContent`, { contents: [{ parts: [{ text: 'x' }] }] });
    expect(b.status).toBe(404);
  });

  it('needs a key like every other route', async () => {
    const res = await fetch(batchUrl(), { method: 'POST', body: JSON.stringify({ requests: [req('x')] }) });
    expect(res.status).toBe(403);
  });

  it('serves scripted replies (e.g. a 429) to embedding calls', async () => {
    emu.enqueue({ status: 429, body: { error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' } } });
    expect((await post(batchUrl(), { requests: [req('x')] })).status).toBe(429);
    expect((await post(batchUrl(), { requests: [req('x')] })).status).toBe(200);
  });
});

describe('embedContent', () => {
  it('answers one embedding', async () => {
    const res = await post(`${emu.url}/v1beta/models/gemini-embedding-001:embedContent`, { content: { parts: [{ text: 'hi there' }] } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { embedding: { values: number[] } };
    expect(body.embedding.values).toStrictEqual(embedText('hi there'));
  });
});

describe('models', () => {
  it('lists embedding models with embedContent and chat models with generateContent', async () => {
    const res = await fetch(`${emu.url}/v1beta/models?pageSize=1000`, { headers: { 'x-goog-api-key': KEY } });
    const { models } = (await res.json()) as { models: Array<{ name: string; supportedGenerationMethods: string[] }> };
    const byName = new Map(models.map((m) => [m.name, m]));
    expect(byName.get('models/gemini-embedding-001')?.supportedGenerationMethods).toContain('embedContent');
    expect(byName.get('models/gemini-embedding-001')?.supportedGenerationMethods).not.toContain('generateContent');
    expect(byName.get('models/gemini-2.5-flash')?.supportedGenerationMethods).toContain('generateContent');
  });
});
