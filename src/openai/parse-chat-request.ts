/**
 * Validates a parsed JSON body against the public request schema and turns the first zod issue
 * into a 400 whose `param` names the offending field the way OpenAI does (`messages[1].content`).
 */
import type { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { ChatCompletionRequestSchema, type ChatCompletionRequest } from './chat-request.js';

export function parseChatRequest(body: unknown): ChatCompletionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError('request body must be a JSON object', { code: 'invalid_request' });
  }
  const result = ChatCompletionRequestSchema.safeParse(body);
  if (result.success) return result.data;
  throw issueToError(result.error.issues[0]!);
}

export function formatParam(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/**
 * For a union such as `string | Part[]`, report the branch the input was evidently meant for (the
 * one that got furthest) instead of zod's generic "Invalid input" on the union itself.
 */
function innermostIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  let best: z.core.$ZodIssue | undefined;
  for (const branch of issue.errors) {
    const candidate = branch[0];
    if (!candidate) continue;
    if (candidate.code === 'invalid_type' && candidate.path.length === 0) continue;
    if (!best || candidate.path.length > best.path.length) best = candidate;
  }
  if (!best) return issue;
  return innermostIssue({ ...best, path: [...issue.path, ...best.path] } as z.core.$ZodIssue);
}

export function issueToError(rawIssue: z.core.$ZodIssue): InvalidRequestError {
  const issue = innermostIssue(rawIssue);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const param = formatParam([...issue.path, key]);
    const message =
      issue.path.length === 0
        ? `Unrecognized request argument supplied: ${key}`
        : `Unrecognized field '${param}'`;
    return new InvalidRequestError(message, { param, code: 'unknown_parameter' });
  }
  const param = formatParam(issue.path);
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return new InvalidRequestError(`Missing required parameter: '${param}'.`, { param, code: 'missing_required_parameter' });
  }
  return new InvalidRequestError(`Invalid value for '${param || 'body'}': ${issue.message}`, {
    param: param || null,
    code: 'invalid_value',
  });
}
