import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../errors.js';
import { convertResponse } from './convert-response.js';

let n = 0;
const opts = (strictCompliance: boolean) => ({
  model: 'gemini-2.5-flash',
  strictCompliance,
  newId: () => `id${++n}`,
  now: () => 1_700_000_000_000,
});

const usage = { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 3, cachedContentTokenCount: 4, totalTokenCount: 18 };
const wantUsage = {
  prompt_tokens: 10,
  completion_tokens: 8,
  total_tokens: 18,
  prompt_tokens_details: { cached_tokens: 4 },
  completion_tokens_details: { reasoning_tokens: 3 },
};
const msg = (extra: Record<string, unknown>) => ({ role: 'assistant', content: null, refusal: null, ...extra });
const choice = (index: number, message: unknown, finish_reason: string, extra: Record<string, unknown> = {}) => ({
  index,
  message,
  finish_reason,
  logprobs: null,
  ...extra,
});
const cand = (parts: unknown[], finishReason = 'STOP', extra: Record<string, unknown> = {}) => ({
  content: { role: 'model', parts },
  finishReason,
  ...extra,
});

describe('convertResponse', () => {
  it.each<{ name: string; strict: boolean; input: unknown; wantChoices: unknown[] }>([
    {
      name: 'text',
      strict: true,
      input: { candidates: [cand([{ text: 'Hel' }, { text: 'lo' }])] },
      wantChoices: [choice(0, msg({ content: 'Hello' }), 'stop')],
    },
    {
      name: 'several candidates, in index order',
      strict: true,
      input: { candidates: [cand([{ text: 'B' }], 'MAX_TOKENS', { index: 1 }), cand([{ text: 'A' }], 'STOP', { index: 0 })] },
      wantChoices: [choice(0, msg({ content: 'A' }), 'stop'), choice(1, msg({ content: 'B' }), 'length')],
    },
    {
      name: 'SAFETY → content_filter',
      strict: true,
      input: { candidates: [{ finishReason: 'SAFETY' }] },
      wantChoices: [choice(0, msg({}), 'content_filter')],
    },
    {
      name: 'prompt blocked outright → one content_filter choice',
      strict: true,
      input: { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } },
      wantChoices: [choice(0, msg({}), 'content_filter')],
    },
    {
      name: 'parallel function calls in order → tool_calls, signature hidden when strict',
      strict: true,
      input: {
        candidates: [
          cand([
            { text: 'Checking.' },
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' },
            { functionCall: { name: 'get_weather', args: { city: 'London' } } },
          ]),
        ],
      },
      wantChoices: [
        choice(
          0,
          msg({
            content: 'Checking.',
            tool_calls: [
              { id: 'call-id1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call-id2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"London"}' } },
            ],
          }),
          'tool_calls',
        ),
      ],
    },
    {
      name: 'function call signature shown when strict off',
      strict: false,
      input: { candidates: [cand([{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'c2ln' }])] },
      wantChoices: [
        choice(
          0,
          msg({ tool_calls: [{ id: 'call-id1', type: 'function', function: { name: 'f', arguments: '{}', thought_signature: 'c2ln' } }] }),
          'tool_calls',
        ),
      ],
    },
    {
      name: 'thoughts never in content; content_blocks and text signature when strict off',
      strict: false,
      input: {
        candidates: [cand([{ text: 'plan', thought: true, thoughtSignature: 'dA==' }, { text: 'answer', thoughtSignature: 'c2ln' }])],
      },
      wantChoices: [
        choice(
          0,
          msg({
            content: 'answer',
            content_blocks: [{ type: 'thinking', thinking: 'plan', signature: 'dA==' }],
            thought_signature: 'c2ln',
          }),
          'stop',
        ),
      ],
    },
    {
      name: 'thoughts hidden entirely when strict',
      strict: true,
      input: { candidates: [cand([{ text: 'plan', thought: true }, { text: 'answer', thoughtSignature: 'c2ln' }])] },
      wantChoices: [choice(0, msg({ content: 'answer' }), 'stop')],
    },
    {
      name: 'code execution in content as fenced blocks, content_parts when strict off',
      strict: false,
      input: {
        candidates: [
          cand([
            { text: 'Let me compute.' },
            { executableCode: { language: 'PYTHON', code: 'print(1+1)' } },
            { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '2\n' } },
            { text: 'It is 2.' },
          ]),
        ],
      },
      wantChoices: [
        choice(
          0,
          msg({
            content: 'Let me compute.\n```python\nprint(1+1)\n```\n```\n2\n```\nIt is 2.',
            content_parts: [
              { type: 'text', text: 'Let me compute.' },
              { type: 'executable_code', language: 'python', code: 'print(1+1)' },
              { type: 'code_execution_result', outcome: 'OUTCOME_OK', output: '2\n' },
              { type: 'text', text: 'It is 2.' },
            ],
          }),
          'stop',
        ),
      ],
    },
    {
      name: 'code execution strict: content only',
      strict: true,
      input: { candidates: [cand([{ executableCode: { language: 'PYTHON', code: 'x' } }, { codeExecutionResult: { outcome: 'OUTCOME_OK', output: 'y' } }])] },
      wantChoices: [choice(0, msg({ content: '```python\nx\n```\n```\ny\n```\n' }), 'stop')],
    },
    {
      name: 'generated image → content_parts with data URI and signature',
      strict: false,
      input: {
        candidates: [cand([{ text: 'Here:' }, { inlineData: { mimeType: 'image/png', data: 'iVBO' }, thoughtSignature: 'c2ln' }])],
      },
      wantChoices: [
        choice(
          0,
          msg({
            content: 'Here:',
            content_parts: [
              { type: 'text', text: 'Here:' },
              { type: 'image', image_url: { url: 'data:image/png;base64,iVBO' }, thought_signature: 'c2ln' },
            ],
            thought_signature: 'c2ln',
          }),
          'stop',
        ),
      ],
    },
    {
      name: 'grounding metadata only when strict off',
      strict: false,
      input: { candidates: [cand([{ text: 'Spain.' }], 'STOP', { groundingMetadata: { webSearchQueries: ['euro 2024'] } })] },
      wantChoices: [choice(0, msg({ content: 'Spain.' }), 'stop', { groundingMetadata: { webSearchQueries: ['euro 2024'] } })],
    },
    {
      name: 'grounding metadata dropped when strict',
      strict: true,
      input: { candidates: [cand([{ text: 'Spain.' }], 'STOP', { groundingMetadata: { webSearchQueries: ['euro 2024'] } })] },
      wantChoices: [choice(0, msg({ content: 'Spain.' }), 'stop')],
    },
  ])('$name', ({ strict, input, wantChoices }) => {
    n = 0;
    const { completion } = convertResponse(input, opts(strict));
    expect(completion.choices).toStrictEqual(wantChoices);
  });

  it('envelope, usage and outcome', () => {
    n = 0;
    const result = convertResponse(
      { candidates: [cand([{ text: 'Hi' }])], usageMetadata: usage, responseId: 'abc', modelVersion: 'gemini-2.5-flash-001' },
      { ...opts(true), warnings: ['ignored_param:user'] },
    );
    expect(result).toStrictEqual({
      completion: {
        id: 'chatcmpl-abc',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'gemini-2.5-flash',
        choices: [choice(0, msg({ content: 'Hi' }), 'stop')],
        usage: wantUsage,
      },
      outcome: {
        responseId: 'abc',
        responseModel: 'gemini-2.5-flash-001',
        finishReasons: ['stop'],
        usage: { inputTokens: 10, outputTokens: 8, reasoningTokens: 3, cachedInputTokens: 4 },
        warnings: ['ignored_param:user'],
      },
    });
  });

  it('random id without responseId', () => {
    n = 0;
    expect(convertResponse({ candidates: [cand([{ text: 'Hi' }])] }, opts(true)).completion.id).toStrictEqual('chatcmpl-id1');
  });

  it.each([
    { name: 'no candidates, no block reason', input: {} },
    { name: 'error body', input: { error: { code: 500, message: 'boom' } } },
    { name: 'not an object', input: 'nope' },
  ])('throws UpstreamError: $name', ({ input }) => {
    expect(() => convertResponse(input, opts(true))).toThrow(UpstreamError);
  });
});
