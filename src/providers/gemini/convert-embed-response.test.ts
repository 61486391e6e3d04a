import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../errors.js';
import { convertEmbedResponse } from './convert-embed-response.js';

const opts = (over: Partial<Parameters<typeof convertEmbedResponse>[1]> = {}) => ({
  model: 'my-model',
  targetModel: 'gemini-embedding-001',
  encodingFormat: 'float' as const,
  batchSizes: [2],
  warnings: [],
  ...over,
});

describe('convertEmbedResponse', () => {
  it('maps vectors, indexes and usage', () => {
    const answer = { embeddings: [{ values: [0.5, -0.25] }, { values: [1, 0] }], usageMetadata: { promptTokenCount: 7 } };
    expect(convertEmbedResponse([answer], opts())).toStrictEqual({
      response: {
        object: 'list',
        data: [
          { object: 'embedding', index: 0, embedding: [0.5, -0.25] },
          { object: 'embedding', index: 1, embedding: [1, 0] },
        ],
        model: 'my-model',
        usage: { prompt_tokens: 7, total_tokens: 7 },
      },
      outcome: {
        responseModel: 'gemini-embedding-001',
        finishReasons: [],
        usage: { inputTokens: 7, outputTokens: 0, reasoningTokens: 0, cachedInputTokens: 0 },
        warnings: [],
      },
    });
  });

  it('indexes across batches and sums usage; missing usage counts as 0', () => {
    const { response } = convertEmbedResponse(
      [{ embeddings: [{ values: [1] }], usageMetadata: { promptTokenCount: 2 } }, { embeddings: [{ values: [2] }, { values: [3] }] }],
      opts({ batchSizes: [1, 2] }),
    );
    expect(response.data.map((d) => [d.index, d.embedding])).toStrictEqual([
      [0, [1]],
      [1, [2]],
      [2, [3]],
    ]);
    expect(response.usage).toStrictEqual({ prompt_tokens: 2, total_tokens: 2 });
  });

  it('encodes base64 as little-endian float32, as OpenAI does', () => {
    const { response } = convertEmbedResponse([{ embeddings: [{ values: [1, -2.5] }] }], opts({ batchSizes: [1], encodingFormat: 'base64' }));
    const b64 = response.data[0]!.embedding as string;
    expect(b64).toBe(Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0x20, 0xc0]).toString('base64'));
    const buf = Buffer.from(b64, 'base64');
    expect(Array.from(new Float32Array(buf.buffer, buf.byteOffset, 2))).toStrictEqual([1, -2.5]);
  });

  it.each([
    ['fewer vectors than inputs', { embeddings: [{ values: [1] }] }],
    ['no embeddings field', {}],
    ['not an object', 'oops'],
  ])('502s %s', (_name, answer) => {
    expect(() => convertEmbedResponse([answer], opts())).toThrow(UpstreamError);
  });
});
