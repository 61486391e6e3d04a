import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors.js';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import { convertMessages, toolResponseObject } from './convert-messages.js';

type Messages = ChatCompletionRequest['messages'];
const call = (id: string, name: string, args: string, thought_signature?: string) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: args, ...(thought_signature ? { thought_signature } : {}) },
});
const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const computerUse = (name: string) => ['click_at', 'navigate', 'open_web_browser'].includes(name);

describe('convertMessages', () => {
  it.each<{ name: string; input: Messages; computer?: boolean; want: unknown }>([
    {
      name: 'tool-call continuation: functionCall with signature, functionResponse named by tool_call_id',
      input: [
        { role: 'user', content: 'Weather in Paris and London?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [call('call-1', 'get_weather', '{"city":"Paris"}', 'c2ln'), call('call-2', 'get_weather', '{"city":"London"}')],
        },
        { role: 'tool', tool_call_id: 'call-1', content: '{"tempC":18}' },
        { role: 'tool', tool_call_id: 'call-2', content: 'cloudy, 14C' },
      ],
      want: {
        contents: [
          { role: 'user', parts: [{ text: 'Weather in Paris and London?' }] },
          {
            role: 'model',
            parts: [
              { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' },
              { functionCall: { name: 'get_weather', args: { city: 'London' } } },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { name: 'get_weather', response: { tempC: 18 } } },
              { functionResponse: { name: 'get_weather', response: { content: 'cloudy, 14C' } } },
            ],
          },
        ],
        warnings: [],
      },
    },
    {
      name: 'assistant text answer signature goes back on its last part',
      input: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello', thought_signature: 'c2ln' },
        { role: 'user', content: 'Again' },
      ],
      want: {
        contents: [
          { role: 'user', parts: [{ text: 'Hi' }] },
          { role: 'model', parts: [{ text: 'Hello', thoughtSignature: 'c2ln' }] },
          { role: 'user', parts: [{ text: 'Again' }] },
        ],
        warnings: [],
      },
    },
    {
      name: 'image edit: content_parts image goes back as model inlineData with signature, then the new instruction',
      input: [
        { role: 'user', content: 'Draw a cat' },
        {
          role: 'assistant',
          content: 'Here:',
          content_parts: [
            { type: 'text', text: 'Here:' },
            { type: 'image', image_url: { url: PNG }, thought_signature: 'c2ln' },
          ],
        },
        { role: 'user', content: 'Make it blue' },
      ],
      want: {
        contents: [
          { role: 'user', parts: [{ text: 'Draw a cat' }] },
          {
            role: 'model',
            parts: [{ text: 'Here:' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' }, thoughtSignature: 'c2ln' }],
          },
          { role: 'user', parts: [{ text: 'Make it blue' }] },
        ],
        warnings: [],
      },
    },
    {
      name: 'code execution parts echoed back from content_parts; thinking blocks with signature kept',
      input: [
        { role: 'user', content: 'Compute' },
        {
          role: 'assistant',
          content: 'ignored in favour of content_parts',
          content_blocks: [{ type: 'thinking', thinking: 'plan', signature: 'dA==' }],
          content_parts: [
            { type: 'executable_code', language: 'python', code: 'print(2)' },
            { type: 'code_execution_result', outcome: 'OUTCOME_OK', output: '2' },
          ],
        },
        { role: 'user', content: 'Thanks' },
      ],
      want: {
        contents: [
          { role: 'user', parts: [{ text: 'Compute' }] },
          {
            role: 'model',
            parts: [
              { text: 'plan', thought: true, thoughtSignature: 'dA==' },
              { executableCode: { language: 'PYTHON', code: 'print(2)' } },
              { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '2' } },
            ],
          },
          { role: 'user', parts: [{ text: 'Thanks' }] },
        ],
        warnings: [],
      },
    },
    {
      name: 'computer use: tool message with screenshot → functionResponse with inline parts',
      computer: true,
      input: [
        { role: 'user', content: 'Find flights' },
        { role: 'assistant', content: null, tool_calls: [call('call-1', 'click_at', '{"x":10,"y":20}', 'c2ln')] },
        {
          role: 'tool',
          tool_call_id: 'call-1',
          content: [
            { type: 'text', text: '{"url":"https://example.com"}' },
            { type: 'image_url', image_url: { url: PNG } },
          ],
        },
      ],
      want: {
        contents: [
          { role: 'user', parts: [{ text: 'Find flights' }] },
          { role: 'model', parts: [{ functionCall: { name: 'click_at', args: { x: 10, y: 20 } }, thoughtSignature: 'c2ln' }] },
          {
            role: 'user',
            parts: [
              {
                functionResponse: {
                  name: 'click_at',
                  response: { url: 'https://example.com' },
                  parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }],
                },
              },
            ],
          },
        ],
        warnings: [],
      },
    },
    {
      name: 'computer use: user message after the actions answers every call (Decision 10)',
      computer: true,
      input: [
        { role: 'user', content: 'Go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [call('c1', 'open_web_browser', '{}', 'c2ln'), call('c2', 'navigate', '{"url":"https://a.example"}')],
        },
        { role: 'user', content: [{ type: 'text', text: '{"url":"https://a.example"}' }, { type: 'image_url', image_url: { url: PNG } }] },
      ],
      want: {
        contents: [
          { role: 'user', parts: [{ text: 'Go' }] },
          {
            role: 'model',
            parts: [
              { functionCall: { name: 'open_web_browser', args: {} }, thoughtSignature: 'c2ln' },
              { functionCall: { name: 'navigate', args: { url: 'https://a.example' } } },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { name: 'open_web_browser', response: { url: 'https://a.example' } } },
              {
                functionResponse: {
                  name: 'navigate',
                  response: { url: 'https://a.example' },
                  parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }],
                },
              },
            ],
          },
        ],
        warnings: [],
      },
    },
    {
      name: 'user message after ordinary function calls stays a user message',
      input: [
        { role: 'user', content: 'Go' },
        { role: 'assistant', content: null, tool_calls: [call('c1', 'navigate', '{}')] },
        { role: 'tool', tool_call_id: 'c1', content: 'done' },
        { role: 'user', content: 'next' },
      ],
      want: {
        contents: [
          { role: 'user', parts: [{ text: 'Go' }] },
          { role: 'model', parts: [{ functionCall: { name: 'navigate', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'navigate', response: { content: 'done' } } }, { text: 'next' }] },
        ],
        warnings: [],
      },
    },
    {
      name: 'message names are ignored with a warning',
      input: [{ role: 'user', content: 'Hi', name: 'bob' }],
      want: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], warnings: ['ignored_param:messages.name'] },
    },
  ])('$name', ({ input, computer, want }) => {
    const frozen = structuredClone(input);
    expect(convertMessages(input, computer ? { isComputerUseAction: computerUse } : {})).toStrictEqual(want);
    expect(input).toStrictEqual(frozen);
  });

  it.each<{ name: string; input: Messages; param: string }>([
    {
      name: 'unknown tool_call_id',
      input: [
        { role: 'user', content: 'x' },
        { role: 'tool', tool_call_id: 'nope', content: 'y' },
      ],
      param: 'messages[1].tool_call_id',
    },
    {
      name: 'tool call arguments not JSON',
      input: [
        { role: 'user', content: 'x' },
        { role: 'assistant', tool_calls: [call('a', 'f', '{nope')] },
      ],
      param: 'messages[1].tool_calls[0].function.arguments',
    },
    {
      name: 'tool call arguments not an object',
      input: [
        { role: 'user', content: 'x' },
        { role: 'assistant', tool_calls: [call('a', 'f', '[1]')] },
      ],
      param: 'messages[1].tool_calls[0].function.arguments',
    },
  ])('400: $name', ({ input, param }) => {
    let err: unknown;
    try {
      convertMessages(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).param).toStrictEqual(param);
  });
});

describe('toolResponseObject', () => {
  it.each([
    { input: '{"a":1}', want: { a: 1 } },
    { input: '[1,2]', want: { content: '[1,2]' } },
    { input: '42', want: { content: '42' } },
    { input: '{broken', want: { content: '{broken' } },
    { input: 'plain', want: { content: 'plain' } },
  ])('$input', ({ input, want }) => {
    expect(toolResponseObject(input)).toStrictEqual(want);
  });
});
