import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors.js';
import type { EmbeddingsRequest } from '../../openai/embeddings.js';
import { convertEmbedRequest, GEMINI_EMBED_BATCH } from './convert-embed-request.js';

const text = (t: string) => ({ content: { parts: [{ text: t }] } });

describe('convertEmbedRequest', () => {
  const cases: Array<{ name: string; input: EmbeddingsRequest; model: string; want: unknown }> = [
    {
      name: 'a string',
      input: { model: 'gemini-embedding-001', input: 'hello' },
      model: 'gemini-embedding-001',
      want: { batches: [{ requests: [{ model: 'models/gemini-embedding-001', ...text('hello') }] }], warnings: [] },
    },
    {
      name: 'an array with dimensions, to the target model',
      input: { model: 'alias', input: ['a', 'b'], dimensions: 256 },
      model: 'models/gemini-embedding-2',
      want: {
        batches: [
          {
            requests: [
              { model: 'models/gemini-embedding-2', ...text('a'), outputDimensionality: 256 },
              { model: 'models/gemini-embedding-2', ...text('b'), outputDimensionality: 256 },
            ],
          },
        ],
        warnings: [],
      },
    },
    {
      name: 'user becomes a warning; encoding_format is not sent',
      input: { model: 'm', input: 'x', user: 'u1', encoding_format: 'base64' },
      model: 'm',
      want: { batches: [{ requests: [{ model: 'models/m', ...text('x') }] }], warnings: ['ignored_param:user'] },
    },
  ];
  it.each(cases)('$name', ({ input, model, want }) => {
    expect(convertEmbedRequest(input, model)).toStrictEqual(want);
  });

  it('splits more than 100 inputs into batches of 100, in order', () => {
    const inputs = Array.from({ length: 2 * GEMINI_EMBED_BATCH + 5 }, (_, i) => `t${i}`);
    const { batches } = convertEmbedRequest({ model: 'm', input: inputs }, 'm');
    expect(batches.map((b) => b.requests.length)).toStrictEqual([100, 100, 5]);
    expect(batches.flatMap((b) => b.requests.map((r) => r.content.parts[0]!.text))).toStrictEqual(inputs);
  });

  it.each([
    ['token ids', [1, 2, 3], 'input'],
    ['arrays of token ids', [[1], [2]], 'input'],
    ['an empty string', '', 'input'],
    ['an empty string in an array', ['a', ''], 'input[1]'],
  ])('400s %s', (_name, input, param) => {
    let error: unknown;
    try {
      convertEmbedRequest({ model: 'm', input } as EmbeddingsRequest, 'm');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).param).toBe(param);
  });

  it('does not mutate the request', () => {
    const req: EmbeddingsRequest = Object.freeze({ model: 'm', input: Object.freeze(['a']) as string[], dimensions: 3 });
    expect(() => convertEmbedRequest(req, 'm')).not.toThrow();
  });
});
