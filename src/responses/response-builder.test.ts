import { describe, expect, it } from 'vitest';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionChunkDelta } from '../openai/chat-response.js';
import { parseResponsesRequest } from './parse-responses-request.js';
import { completionToResponse, presentResponse, ResponseBuilder, type ResponseBuilderOptions } from './response-builder.js';
import { responseEcho } from './response-echo.js';

const RESP = 'resp_0123456789abcdef0123456789abcdef';
const HEX = RESP.slice(5);
const id = (prefix: string, n: number) => `${prefix}_${HEX}${n.toString(16).padStart(4, '0')}`;

const options = (expose = { signatures: true, encryptedContent: true }): ResponseBuilderOptions => ({
  responseId: RESP,
  createdAt: 1_700_000_000,
  echo: responseEcho(parseResponsesRequest({ model: 'gemini-2.5-flash', input: 'hi' })),
  firstItemIndex: 1,
  expose,
  now: () => 1_700_000_005_000,
});

const usage = { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 3 } };
const wantUsage = { input_tokens: 10, input_tokens_details: { cached_tokens: 2 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 17 };

function completion(message: Partial<ChatCompletion['choices'][0]['message']>, finish: ChatCompletion['choices'][0]['finish_reason'] = 'stop', extra = {}): ChatCompletion {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gemini-2.5-flash',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, finish_reason: finish, logprobs: null, ...extra }],
    usage,
  };
}

const chunk = (delta: ChatCompletionChunkDelta, finish: string | null = null, extra = {}): ChatCompletionChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gemini-2.5-flash',
  choices: [{ index: 0, delta, finish_reason: finish as never, logprobs: null, ...extra }],
});
const usageChunk: ChatCompletionChunk = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gemini-2.5-flash', choices: [], usage };

describe('completionToResponse', () => {
  it('a text answer → one message item, output_text and usage', () => {
    const r = completionToResponse(completion({ content: 'Hello.' }), options());
    expect(r).toMatchObject({ id: RESP, object: 'response', created_at: 1_700_000_000, completed_at: 1_700_000_005, status: 'completed', error: null, incomplete_details: null });
    expect(r.output).toStrictEqual([
      { type: 'message', id: id('msg', 1), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello.', annotations: [], logprobs: [] }] },
    ]);
    expect(r.output_text).toBe('Hello.');
    expect(r.usage).toStrictEqual(wantUsage);
  });

  it('thoughts, signed calls and a signed text; signatures shown only as exposed', () => {
    const c = completion(
      {
        content: 'Calling.',
        thought_signature: 'sigT',
        content_blocks: [{ type: 'thinking', thinking: 'Plan: call it.', signature: 'sigR' }],
        tool_calls: [
          { id: 'call-a', type: 'function', function: { name: 'f', arguments: '{"x":1}', thought_signature: 'sigF' } },
          { id: 'call-b', type: 'function', function: { name: 'g', arguments: '{}' } },
        ],
      },
      'tool_calls',
    );
    const full = completionToResponse(c, options());
    expect(full.output).toStrictEqual([
      { type: 'reasoning', id: id('rs', 1), summary: [{ type: 'summary_text', text: 'Plan: call it.' }], encrypted_content: 'sigR' },
      {
        type: 'message',
        id: id('msg', 2),
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Calling.', annotations: [], logprobs: [] }],
        thought_signature: 'sigT',
      },
      { type: 'function_call', id: id('fc', 3), call_id: 'call-a', name: 'f', arguments: '{"x":1}', status: 'completed', thought_signature: 'sigF' },
      { type: 'function_call', id: id('fc', 4), call_id: 'call-b', name: 'g', arguments: '{}', status: 'completed' },
    ]);
    const strict = presentResponse(full, { signatures: false, encryptedContent: false });
    expect(JSON.stringify(strict)).not.toContain('sig');
    expect(JSON.stringify(full)).toContain('sigF'); // the stored copy keeps them
  });

  it.each([
    ['length', 'max_output_tokens'],
    ['content_filter', 'content_filter'],
  ] as const)('finish_reason %s → incomplete (%s)', (finish, reason) => {
    const r = completionToResponse(completion({ content: 'Cut' }, finish), options());
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toStrictEqual({ reason });
    expect(r.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
  });

  it('code execution → code_interpreter_call items between the texts (content_parts, not the fenced content)', () => {
    const r = completionToResponse(
      completion({
        content: 'Running.\n```python\nprint(2)\n```\n```\n2\n```\nDone.',
        content_parts: [
          { type: 'text', text: 'Running.' },
          { type: 'executable_code', language: 'python', code: 'print(2)' },
          { type: 'code_execution_result', outcome: 'OUTCOME_OK', output: '2\n' },
          { type: 'text', text: 'Done.' },
        ],
      }),
      options(),
    );
    expect(r.output.map((i) => [i.type, i.type === 'message' ? i.content[0]!.text : i.type === 'code_interpreter_call' ? [i.code, i.outputs, i.status] : undefined])).toStrictEqual([
      ['message', 'Running.'],
      ['code_interpreter_call', ['print(2)', [{ type: 'logs', logs: '2\n' }], 'completed']],
      ['message', 'Done.'],
    ]);
    expect(r.output_text).toBe('Running.Done.');
  });

  it('grounding → url_citation annotations (byte offsets → characters) and a web_search_call item', () => {
    const text = 'Ünïcode first. Spain won.';
    const start = Buffer.byteLength('Ünïcode first. ');
    const grounding = {
      webSearchQueries: ['euro 2024 winner'],
      groundingChunks: [{ web: { uri: 'https://example.com/a', title: 'example.com' } }],
      groundingSupports: [{ segment: { startIndex: start, endIndex: Buffer.byteLength(text), text: 'Spain won.' }, groundingChunkIndices: [0] }],
    };
    const r = completionToResponse(completion({ content: text }, 'stop', { groundingMetadata: grounding }), options());
    expect(r.output).toStrictEqual([
      {
        type: 'message',
        id: id('msg', 1),
        status: 'completed',
        role: 'assistant',
        content: [
          {
            type: 'output_text',
            text,
            annotations: [{ type: 'url_citation', start_index: 15, end_index: text.length, url: 'https://example.com/a', title: 'example.com' }],
            logprobs: [],
          },
        ],
      },
      {
        type: 'web_search_call',
        id: id('ws', 2),
        status: 'completed',
        action: { type: 'search', query: 'euro 2024 winner', sources: [{ type: 'url', url: 'https://example.com/a' }] },
      },
    ]);
  });
});

describe('ResponseBuilder stream events', () => {
  it('a text stream: the issue order, sequence numbers from 0', () => {
    const b = new ResponseBuilder(options());
    const events = [
      ...b.start(),
      ...b.push(chunk({ role: 'assistant', content: 'Hel' })),
      ...b.push(chunk({ content: 'lo' })),
      ...b.push(chunk({}, 'stop')),
      ...b.push(usageChunk),
      ...b.finish(),
    ];
    expect(events.map((e) => e.type)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toStrictEqual(events.map((_, i) => i));
    expect(events[0]).toMatchObject({ response: { id: RESP, status: 'in_progress', output: [] } });
    expect(events[4]).toStrictEqual({
      type: 'response.output_text.delta',
      item_id: id('msg', 1),
      output_index: 0,
      content_index: 0,
      delta: 'Hel',
      logprobs: [],
      sequence_number: 4,
    });
    expect(events[6]).toMatchObject({ text: 'Hello' });
    expect(events.at(-1)).toMatchObject({ response: { status: 'completed', output_text: 'Hello', usage: wantUsage } });
    expect(b.response()).toStrictEqual(completionToResponse(completion({ content: 'Hello' }), options()));
  });

  it('reasoning then a function call, signatures hidden in events when not exposed but kept for the store', () => {
    const b = new ResponseBuilder(options({ signatures: false, encryptedContent: false }));
    const events = [
      ...b.start(),
      ...b.push(chunk({ role: 'assistant', content: '', content_blocks: [{ type: 'thinking', thinking: 'Hmm', signature: 'sigR' }] })),
      ...b.push(chunk({ tool_calls: [{ index: 0, id: 'call-a', type: 'function', function: { name: 'f', arguments: '{"x":1}', thought_signature: 'sigF' } }] })),
      ...b.push(chunk({}, 'tool_calls')),
      ...b.finish(),
    ];
    expect(events.map((e) => e.type)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[9]).toMatchObject({ item_id: id('fc', 2), output_index: 1, delta: '{"x":1}' });
    expect(JSON.stringify(events)).not.toContain('sig');
    expect(b.response().output).toMatchObject([{ encrypted_content: 'sigR' }, { thought_signature: 'sigF' }]);
  });

  it('text sent before a code part is not repeated when the stream turns structured', () => {
    const b = new ResponseBuilder(options());
    b.start();
    b.push(chunk({ role: 'assistant', content: 'Let me ' }));
    b.push(chunk({ content: 'run it.' }));
    b.push(
      chunk({
        content: '\n```python\nprint(1)\n```\n',
        content_parts: [
          { type: 'text', text: 'Let me ' },
          { type: 'text', text: 'run it.' },
          { type: 'executable_code', language: 'python', code: 'print(1)' },
        ],
      }),
    );
    b.push(chunk({ content: '```\n1\n```\n', content_parts: [{ type: 'code_execution_result', outcome: 'OUTCOME_OK', output: '1\n' }] }));
    b.push(chunk({ content: 'One.', content_parts: [{ type: 'text', text: 'One.' }] }, 'stop'));
    b.finish();
    expect(b.response().output.map((i) => (i.type === 'message' ? i.content[0]!.text : i.type))).toStrictEqual(['Let me run it.', 'code_interpreter_call', 'One.']);
  });

  it('a late signature-only chunk signs the text answer', () => {
    const b = new ResponseBuilder(options());
    b.start();
    b.push(chunk({ role: 'assistant', content: 'Answer.' }));
    b.push(chunk({ thought_signature: 'sigLate' }, 'stop'));
    b.finish();
    expect(b.response().output[0]).toMatchObject({ type: 'message', thought_signature: 'sigLate' });
  });

  it('a failure after the start → response.failed, then an error event', () => {
    const b = new ResponseBuilder(options());
    const events = [...b.start(), ...b.push(chunk({ role: 'assistant', content: 'Hi' })), ...b.fail({ type: 'api_error', code: null, message: 'cut' })];
    expect(events.slice(-2)).toStrictEqual([
      expect.objectContaining({ type: 'response.failed', sequence_number: 5, response: expect.objectContaining({ status: 'failed', error: { code: 'api_error', message: 'cut' } }) }),
      { type: 'error', code: 'api_error', message: 'cut', param: null, error: { type: 'api_error', code: 'api_error', message: 'cut', param: null }, sequence_number: 6 },
    ]);
  });
});
