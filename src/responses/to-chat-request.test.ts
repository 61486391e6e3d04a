import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import { parseResponsesRequest } from './parse-responses-request.js';
import type { ResponsesRequest } from './responses-request.js';
import { toChatRequest, type ResolvedItem } from './to-chat-request.js';

const base = (extra: Record<string, unknown> = {}): ResponsesRequest =>
  parseResponsesRequest({ model: 'gemini-2.5-flash', input: 'hi', ...extra });

/** The items of a request as the resolver would hand them over (no store involved). */
function items(req: ResponsesRequest): ResolvedItem[] {
  const input = typeof req.input === 'string' ? [{ type: 'message' as const, role: 'user' as const, content: req.input }] : (req.input ?? []);
  return input.map((item, i) => ({ item: item as ResolvedItem['item'], param: `input[${i}]` }));
}

const translate = (extra: Record<string, unknown>) => {
  const req = base(extra);
  return toChatRequest(req, items(req));
};

describe('toChatRequest', () => {
  it.each<{ name: string; input: Record<string, unknown>; want: Partial<ChatCompletionRequest>; warnings?: string[] }>([
    {
      name: 'a string input is one user message',
      input: {},
      want: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] },
    },
    {
      name: 'instructions lead as a system message; sampling and length map over',
      input: { instructions: 'Be terse.', temperature: 0.2, top_p: 0.9, max_output_tokens: 50 },
      want: {
        model: 'gemini-2.5-flash',
        messages: [
          { role: 'system', content: 'Be terse.' },
          { role: 'user', content: 'hi' },
        ],
        temperature: 0.2,
        top_p: 0.9,
        max_completion_tokens: 50,
      },
    },
    {
      name: 'streaming always asks for usage',
      input: { stream: true },
      want: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } },
    },
    {
      name: 'function, web search and code interpreter tools; tool_choice by name',
      input: {
        tools: [
          { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: true },
          { type: 'web_search' },
          { type: 'code_interpreter', container: { type: 'auto' } },
        ],
        tool_choice: { type: 'function', name: 'get_weather' },
        parallel_tool_calls: false,
      },
      want: {
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [
          { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: true } },
          { type: 'function', function: { name: 'grounding_search' } },
          { type: 'code_execution' },
        ],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        parallel_tool_calls: false,
      },
    },
    {
      name: 'json_schema text format → response_format',
      input: { text: { format: { type: 'json_schema', name: 'thing', schema: { type: 'object' }, strict: true } } },
      want: {
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: 'hi' }],
        response_format: { type: 'json_schema', json_schema: { name: 'thing', schema: { type: 'object' }, strict: true } },
      },
    },
    {
      name: 'reasoning effort and summary → reasoning_effort plus thoughts',
      input: { reasoning: { effort: 'low', summary: 'auto' } },
      want: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], thinking: { type: 'enabled' }, reasoning_effort: 'low' },
    },
    {
      name: 'reasoning effort none turns thinking off',
      input: { reasoning: { effort: 'none' } },
      want: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], thinking: { type: 'disabled' } },
    },
    {
      name: 'SDK defaults are accepted; the ignored ones warn',
      input: {
        store: true,
        include: ['reasoning.encrypted_content', 'web_search_call.action.sources'],
        truncation: 'disabled',
        service_tier: 'auto',
        prompt_cache_key: 'k',
        safety_identifier: 's',
        top_logprobs: 0,
        text: { verbosity: 'low' },
        background: false,
        metadata: { a: 'b' },
        user: 'u1',
      },
      want: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], user: 'u1' },
      warnings: [
        'ignored_param:service_tier',
        'ignored_param:prompt_cache_key',
        'ignored_param:safety_identifier',
        'ignored_param:text.verbosity',
        'ignored_param:include',
      ],
    },
    {
      name: 'user parts: text, image URL, data URI file, files id',
      input: {
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'look' },
              { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' },
              { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,BBBB' },
              { type: 'input_image', file_id: 'abc123' },
            ],
          },
        ],
      },
      want: {
        model: 'gemini-2.5-flash',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
              { type: 'image_url', image_url: { url: 'data:application/pdf;base64,BBBB' } },
              { type: 'image_url', image_url: { url: 'https://generativelanguage.googleapis.com/v1beta/files/abc123' } },
            ],
          },
        ],
      },
    },
    {
      name: 'a tool loop: reasoning, text and calls of one turn make one assistant message; outputs are tool messages',
      input: {
        input: [
          { role: 'developer', content: [{ type: 'input_text', text: 'Use tools.' }] },
          { role: 'user', content: 'weather?' },
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'thinking' }], encrypted_content: 'sigR' },
          { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
          { type: 'function_call', id: 'fc_1', call_id: 'call-1', name: 'get_weather', arguments: '{"city":"Paris"}', thought_signature: 'sigF' },
          { type: 'function_call', call_id: 'call-2', name: 'get_weather', arguments: '{"city":"Rome"}' },
          { type: 'function_call_output', call_id: 'call-1', output: '{"temp":20}' },
          { type: 'function_call_output', call_id: 'call-2', output: [{ type: 'input_text', text: 'sunny' }] },
        ],
      },
      want: {
        model: 'gemini-2.5-flash',
        messages: [
          { role: 'developer', content: 'Use tools.' },
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: 'Checking.',
            content_blocks: [{ type: 'thinking', thinking: 'thinking', signature: 'sigR' }],
            tool_calls: [
              { id: 'call-1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}', thought_signature: 'sigF' } },
              { id: 'call-2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call-1', content: '{"temp":20}' },
          { role: 'tool', tool_call_id: 'call-2', content: [{ type: 'text', text: 'sunny' }] },
        ],
      },
    },
    {
      name: 'a signed text answer and code execution keep their parts',
      input: {
        input: [
          { role: 'user', content: 'compute' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me run it.' }] },
          { type: 'code_interpreter_call', id: 'ci_1', code: 'print(1+1)', container_id: 'x', outputs: [{ type: 'logs', logs: '2\n' }], status: 'completed' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It is 2.' }], thought_signature: 'sigT' },
          { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q' } },
          { role: 'user', content: 'thanks' },
        ],
      },
      want: {
        model: 'gemini-2.5-flash',
        messages: [
          { role: 'user', content: 'compute' },
          {
            role: 'assistant',
            content: 'Let me run it.It is 2.',
            content_parts: [
              { type: 'text', text: 'Let me run it.' },
              { type: 'executable_code', language: 'python', code: 'print(1+1)' },
              { type: 'code_execution_result', outcome: 'OUTCOME_OK', output: '2\n' },
              { type: 'text', text: 'It is 2.', thought_signature: 'sigT' },
            ],
          },
          { role: 'user', content: 'thanks' },
        ],
      },
      warnings: ['ignored_input:web_search_call'],
    },
    {
      name: 'a lone signed text answer keeps its signature on the message',
      input: {
        input: [
          { role: 'user', content: 'a' },
          { type: 'message', role: 'assistant', content: 'b', thought_signature: 'sigB' },
          { role: 'user', content: 'c' },
        ],
      },
      want: {
        model: 'gemini-2.5-flash',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b', thought_signature: 'sigB' },
          { role: 'user', content: 'c' },
        ],
      },
    },
  ])('$name', ({ input, want, warnings }) => {
    const req = base(input);
    const frozen = structuredClone(req);
    const out = toChatRequest(req, items(req));
    expect(out.request).toStrictEqual(want);
    expect(out.warnings).toStrictEqual(warnings ?? []);
    expect(req).toStrictEqual(frozen);
  });

  it('reports the Responses param of each message', () => {
    const out = translate({
      instructions: 'x',
      input: [
        { role: 'user', content: 'a' },
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c', output: 'r' },
      ],
    });
    expect(out.messageParams).toStrictEqual(['instructions', 'input[0]', 'input[1]', 'input[2]']);
  });

  it.each<{ name: string; input: Record<string, unknown>; param: string }>([
    { name: 'background: true', input: { background: true }, param: 'background' },
    { name: 'conversation', input: { conversation: 'conv_1' }, param: 'conversation' },
    { name: 'prompt', input: { prompt: { id: 'pmpt_1' } }, param: 'prompt' },
    { name: 'max_tool_calls', input: { max_tool_calls: 3 }, param: 'max_tool_calls' },
    { name: 'truncation auto', input: { truncation: 'auto' }, param: 'truncation' },
    { name: 'top_logprobs', input: { top_logprobs: 2 }, param: 'top_logprobs' },
    { name: 'logprobs include', input: { include: ['message.output_text.logprobs'] }, param: 'include[0]' },
    { name: 'hosted file search', input: { tools: [{ type: 'function', name: 'f' }, { type: 'file_search', vector_store_ids: ['v'] }] }, param: 'tools[1].type' },
    { name: 'forcing a hosted tool', input: { tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } }, param: 'tool_choice' },
    { name: 'xhigh effort', input: { reasoning: { effort: 'xhigh' } }, param: 'reasoning.effort' },
    {
      name: 'an output part in a user message',
      input: { input: [{ role: 'user', content: [{ type: 'output_text', text: 'x' }] }] },
      param: 'input[0].content[0].type',
    },
    { name: 'an image without a source', input: { input: [{ role: 'user', content: [{ type: 'input_image', detail: 'auto' }] }] }, param: 'input[0].content[0]' },
    {
      name: 'file_data that is not a data URI',
      input: { input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'JVBERi0' }] }] },
      param: 'input[0].content[0].file_data',
    },
    { name: 'only instructions', input: { instructions: 'x', input: [] }, param: 'input' },
  ])('refuses $name naming $param', ({ input, param }) => {
    expect(() => translate(input)).toThrow(expect.objectContaining({ status: 400, param }));
  });
});

describe('parseResponsesRequest', () => {
  it.each<{ name: string; body: Record<string, unknown>; param: string; code: string }>([
    { name: 'an unknown field', body: { model: 'm', input: 'x', frobnicate: 1 }, param: 'frobnicate', code: 'unknown_parameter' },
    { name: 'a missing model', body: { input: 'x' }, param: 'model', code: 'missing_required_parameter' },
    { name: 'an unknown item type', body: { model: 'm', input: [{ type: 'telepathy' }] }, param: 'input[0].type', code: 'invalid_value' },
    {
      name: 'an unknown field in a function tool',
      body: { model: 'm', input: 'x', tools: [{ type: 'function', name: 'f', colour: 'red' }] },
      param: 'tools[0].colour',
      code: 'unknown_parameter',
    },
    { name: 'a bad temperature', body: { model: 'm', input: 'x', temperature: 3 }, param: 'temperature', code: 'invalid_value' },
  ])('refuses $name', ({ body, param, code }) => {
    expect(() => parseResponsesRequest(body)).toThrow(expect.objectContaining({ status: 400, param, code }));
  });

  it('reads an easy message without type as a message item', () => {
    expect(parseResponsesRequest({ model: 'm', input: [{ role: 'user', content: 'x' }] }).input).toStrictEqual([
      { type: 'message', role: 'user', content: 'x' },
    ]);
  });
});
