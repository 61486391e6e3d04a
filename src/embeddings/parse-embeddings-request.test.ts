import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { parseEmbeddingsRequest } from './parse-embeddings-request.js';

describe('parseEmbeddingsRequest', () => {
  it.each([
    ['a string', { model: 'm', input: 'hello' }],
    ['strings', { model: 'm', input: ['a', 'b'] }],
    ['tokens', { model: 'm', input: [1, 2, 3] }],
    ['token arrays', { model: 'm', input: [[1], [2]] }],
    ['every option', { model: 'm', input: 'x', dimensions: 256, encoding_format: 'base64', user: 'u' }],
  ])('accepts %s', (_name, body) => {
    expect(parseEmbeddingsRequest(body)).toStrictEqual(body);
  });

  it.each([
    ['no input', { model: 'm' }, 'input', 'missing_required_parameter'],
    ['no model', { input: 'x' }, 'model', 'missing_required_parameter'],
    ['an empty array', { model: 'm', input: [] }, 'input', 'invalid_value'],
    ['a bad encoding', { model: 'm', input: 'x', encoding_format: 'int8' }, 'encoding_format', 'invalid_value'],
    ['zero dimensions', { model: 'm', input: 'x', dimensions: 0 }, 'dimensions', 'invalid_value'],
    ['an unknown field', { model: 'm', input: 'x', task_type: 'q' }, 'task_type', 'unknown_parameter'],
    ['too many inputs', { model: 'm', input: Array.from({ length: 2049 }, () => 'x') }, 'input', 'invalid_value'],
  ])('400s %s naming the param', (_name, body, param, code) => {
    let error: unknown;
    try {
      parseEmbeddingsRequest(body);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).param).toBe(param);
    expect((error as InvalidRequestError).code).toBe(code);
  });

  it('400s a body that is not an object', () => {
    expect(() => parseEmbeddingsRequest([1])).toThrow(InvalidRequestError);
  });
});
