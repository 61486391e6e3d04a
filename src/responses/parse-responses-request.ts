/**
 * Validates a parsed JSON body against the Responses request schema; the first zod issue becomes a
 * 400 whose `param` names the field the way OpenAI does (`input[1].content[0].type`), through the
 * same issue mapping as the chat route.
 */
import { InvalidRequestError } from '../errors.js';
import { fastSafeParser } from '../fast-safe-parse.js';
import { issueToError } from '../openai/parse-chat-request.js';
import { ResponsesRequestSchema, type ResponsesRequest } from './responses-request.js';

/** The schema's answers, without zod's copy of a plainly valid body. */
const parseRequest = fastSafeParser(ResponsesRequestSchema);

export function parseResponsesRequest(body: unknown): ResponsesRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError('request body must be a JSON object', { code: 'invalid_request' });
  }
  const result = parseRequest(body);
  if (result.success) return result.data;
  throw issueToError(result.error.issues[0]!);
}
