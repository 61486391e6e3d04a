/**
 * Validates a parsed JSON body against the embeddings request schema; the first zod issue becomes
 * a 400 naming the field, exactly as for chat completions.
 */
import { InvalidRequestError } from '../errors.js';
import { fastSafeParser } from '../fast-safe-parse.js';
import { EmbeddingsRequestSchema, MAX_EMBEDDING_INPUTS, type EmbeddingsRequest } from '../openai/embeddings.js';
import { issueToError } from '../openai/parse-chat-request.js';

/** The schema's answers, without zod's copy of a plainly valid body (up to 2,048 inputs). */
const parseRequest = fastSafeParser(EmbeddingsRequestSchema);

export function parseEmbeddingsRequest(body: unknown): EmbeddingsRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError('request body must be a JSON object', { code: 'invalid_request' });
  }
  // `input` is a union; zod would report its branches' issues, not these two plain facts.
  const input = (body as { input?: unknown }).input;
  if (input === undefined) {
    throw new InvalidRequestError("Missing required parameter: 'input'.", { param: 'input', code: 'missing_required_parameter' });
  }
  if (Array.isArray(input) && input.length > MAX_EMBEDDING_INPUTS) {
    throw new InvalidRequestError(`Invalid value for 'input': at most ${MAX_EMBEDDING_INPUTS} inputs per request`, {
      param: 'input',
      code: 'invalid_value',
    });
  }
  const result = parseRequest(body);
  if (result.success) return result.data;
  throw issueToError(result.error.issues[0]!);
}
