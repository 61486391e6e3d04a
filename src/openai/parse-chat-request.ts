/**
 * Validates a parsed JSON body against the public request schema and turns the first zod issue
 * into a 400 whose `param` names the offending field the way OpenAI does (`messages[1].content`).
 */
import type { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { fastSafeParser } from '../fast-safe-parse.js';
import { formatParam, innermostIssue, issueParam } from '../issue-param.js';
import { ChatCompletionRequestSchema, type ChatCompletionRequest } from './chat-request.js';
import { findTooDeep, jsonTextTooDeep, MAX_JSON_DEPTH, MAX_SCHEMA_DEPTH } from './json-depth.js';

/**
 * `ChatCompletionRequestSchema.safeParse`, without zod's copy of a plainly valid body: for every
 * chat request the gateway validates (the client's, and the one routing merges overrides into).
 */
export const safeParseChatRequest = fastSafeParser(ChatCompletionRequestSchema);

export function parseChatRequest(body: unknown): ChatCompletionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError('request body must be a JSON object', { code: 'invalid_request' });
  }
  const result = safeParseChatRequest(body);
  if (!result.success) throw issueToError(result.error.issues[0]!);
  checkNesting(result.data);
  return result.data;
}

/**
 * The depth limits of `json-depth.ts` on the fields that nest or carry JSON as text: schemas at
 * 64 levels, tool-call arguments and tool results at 512 (the body itself was bounded when read).
 */
function checkNesting(request: ChatCompletionRequest): void {
  const schema = (value: unknown, param: string) => {
    if (findTooDeep(value, MAX_SCHEMA_DEPTH) !== undefined) throw tooDeep(param, MAX_SCHEMA_DEPTH, 'a JSON schema');
  };
  const text = (value: string, param: string) => {
    if (jsonTextTooDeep(value, MAX_JSON_DEPTH)) throw tooDeep(param, MAX_JSON_DEPTH, 'a JSON value');
  };
  request.tools?.forEach((tool, i) => {
    if (tool.type === 'function' && tool.function.parameters !== undefined) schema(tool.function.parameters, `tools[${i}].function.parameters`);
  });
  request.functions?.forEach((fn, i) => {
    if (fn.parameters !== undefined) schema(fn.parameters, `functions[${i}].parameters`);
  });
  const format = request.response_format;
  if (format?.type === 'json_schema' && format.json_schema.schema !== undefined) {
    schema(format.json_schema.schema, 'response_format.json_schema.schema');
  }
  request.messages.forEach((message, i) => {
    if (message.role === 'assistant') {
      message.tool_calls?.forEach((call, j) => text(call.function.arguments, `messages[${i}].tool_calls[${j}].function.arguments`));
      if (message.function_call) text(message.function_call.arguments, `messages[${i}].function_call.arguments`);
    } else if (message.role === 'tool' || message.role === 'function') {
      if (typeof message.content === 'string') text(message.content, `messages[${i}].content`);
      else if (Array.isArray(message.content)) {
        message.content.forEach((part, j) => {
          if (part.type === 'text') text(part.text, `messages[${i}].content[${j}].text`);
        });
      }
    }
  });
}

function tooDeep(param: string, limit: number, what: string): InvalidRequestError {
  return new InvalidRequestError(`${param}: ${what} nested deeper than ${limit} levels`, { param, code: 'nesting_too_deep' });
}

/** The first issue of a public schema as a 400 with OpenAI's messages and codes. */
export function issueToError(rawIssue: z.core.$ZodIssue): InvalidRequestError {
  const issue = innermostIssue(rawIssue);
  const param = issueParam(issue);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const message =
      issue.path.length === 0
        ? `Unrecognized request argument supplied: ${key}`
        : `Unrecognized field '${param}'`;
    return new InvalidRequestError(message, { param, code: 'unknown_parameter' });
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return new InvalidRequestError(`Missing required parameter: '${param}'.`, { param, code: 'missing_required_parameter' });
  }
  return new InvalidRequestError(`Invalid value for '${param || 'body'}': ${issue.message}`, {
    param: param || null,
    code: 'invalid_value',
  });
}

export { formatParam };
