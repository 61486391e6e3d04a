import { describe, expect, it } from 'vitest';
import type { EmbeddingsRequest } from '../../openai/embeddings.js';
import { convertVertexEmbedRequest, predictAnswerAsBatch } from './vertex-embeddings.js';

describe('convertVertexEmbedRequest', () => {
  it.each<{ name: string; request: EmbeddingsRequest; model: string; want: unknown }>([
    {
      name: 'one text',
      request: { model: 'text-embedding-005', input: 'hello' },
      model: 'text-embedding-005',
      want: { batches: [{ instances: [{ content: 'hello' }] }], warnings: [] },
    },
    {
      name: 'dimensions and user',
      request: { model: 'text-embedding-005', input: ['a', 'b'], dimensions: 256, user: 'u' },
      model: 'text-embedding-005',
      want: { batches: [{ instances: [{ content: 'a' }, { content: 'b' }], parameters: { outputDimensionality: 256 } }], warnings: ['ignored_param:user'] },
    },
    {
      name: 'gemini-embedding-001 takes one instance per call',
      request: { model: 'gemini-embedding-001', input: ['a', 'b'] },
      model: 'gemini-embedding-001',
      want: { batches: [{ instances: [{ content: 'a' }] }, { instances: [{ content: 'b' }] }], warnings: [] },
    },
  ])('$name', ({ request, model, want }) => {
    expect(convertVertexEmbedRequest(request, model)).toStrictEqual(want);
  });

  it('splits at 250 instances', () => {
    const input = Array.from({ length: 251 }, (_, i) => `t${i}`);
    expect(convertVertexEmbedRequest({ model: 'text-embedding-005', input }, 'text-embedding-005').batches.map((b) => b.instances.length)).toStrictEqual([250, 1]);
  });

  it('token ids are a 400 on param input, as for AI Studio', () => {
    expect(() => convertVertexEmbedRequest({ model: 'm', input: [1, 2] }, 'm')).toThrow(expect.objectContaining({ status: 400, param: 'input' }));
  });
});

describe('predictAnswerAsBatch', () => {
  it.each([
    {
      name: 'the observed answer (snake_case token_count)',
      json: {
        predictions: [
          { embeddings: { values: [0.1, 0.2], statistics: { token_count: 2, truncated: false } } },
          { embeddings: { values: [0.3, 0.4], statistics: { token_count: 3, truncated: false } } },
        ],
        metadata: { billableCharacterCount: 10 },
      },
      want: { embeddings: [{ values: [0.1, 0.2] }, { values: [0.3, 0.4] }], usageMetadata: { promptTokenCount: 5 } },
    },
    { name: 'no predictions', json: {}, want: { embeddings: [], usageMetadata: { promptTokenCount: 0 } } },
  ])('$name', ({ json, want }) => {
    expect(predictAnswerAsBatch(json)).toStrictEqual(want);
  });
});
