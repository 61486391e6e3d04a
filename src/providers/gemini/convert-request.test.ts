import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors.js';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import type { Target } from '../provider.js';
import { convertRequest } from './convert-request.js';

const target: Target = {
  provider: 'google',
  apiKey: 'k',
  baseUrl: 'https://generativelanguage.googleapis.com',
  strictCompliance: true,
  timeoutMs: 1000,
};

const base = (extra: Partial<ChatCompletionRequest>): ChatCompletionRequest => ({
  model: 'gemini-2.5-flash',
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});
const hi = [{ role: 'user', parts: [{ text: 'Hi' }] }];

describe('convertRequest', () => {
  it.each<{ name: string; input: ChatCompletionRequest; target?: Partial<Target>; want: unknown }>([
    { name: 'plain user message', input: base({}), want: { body: { contents: hi }, warnings: [] } },
    {
      name: 'every system and developer message, in order, with all parts',
      input: base({
        messages: [
          { role: 'system', content: 'A' },
          { role: 'user', content: 'Hi' },
          { role: 'developer', content: [{ type: 'text', text: 'B' }, { type: 'text', text: 'C' }] },
          { role: 'system', content: 'D' },
        ],
      }),
      want: {
        body: { contents: hi, systemInstruction: { parts: [{ text: 'A' }, { text: 'B' }, { text: 'C' }, { text: 'D' }] } },
        warnings: [],
      },
    },
    {
      name: 'roles mapped and consecutive same-role turns merged',
      input: base({
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: [{ type: 'text', text: 'b' }] },
          { role: 'assistant', content: 'c' },
          { role: 'assistant', content: 'd' },
          { role: 'user', content: 'e' },
        ],
      }),
      want: {
        body: {
          contents: [
            { role: 'user', parts: [{ text: 'a' }, { text: 'b' }] },
            { role: 'model', parts: [{ text: 'c' }, { text: 'd' }] },
            { role: 'user', parts: [{ text: 'e' }] },
          ],
        },
        warnings: [],
      },
    },
    {
      name: 'generation config',
      input: base({
        max_tokens: 10,
        max_completion_tokens: 20,
        temperature: 0.2,
        top_p: 0.9,
        stop: 'END',
        n: 2,
        seed: 7,
        presence_penalty: 0.5,
        frequency_penalty: -0.5,
      }),
      want: {
        body: {
          contents: hi,
          generationConfig: {
            maxOutputTokens: 20,
            temperature: 0.2,
            topP: 0.9,
            stopSequences: ['END'],
            candidateCount: 2,
            seed: 7,
            presencePenalty: 0.5,
            frequencyPenalty: -0.5,
          },
        },
        warnings: [],
      },
    },
    {
      name: 'max_tokens alone, stop array',
      input: base({ max_tokens: 10, stop: ['a', 'b'] }),
      want: { body: { contents: hi, generationConfig: { maxOutputTokens: 10, stopSequences: ['a', 'b'] } }, warnings: [] },
    },
    {
      name: 'json_object',
      input: base({ response_format: { type: 'json_object' } }),
      want: { body: { contents: hi, generationConfig: { responseMimeType: 'application/json' } }, warnings: [] },
    },
    {
      name: 'json_schema',
      input: base({
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'x', schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } },
        },
      }),
      want: {
        body: {
          contents: hi,
          generationConfig: {
            responseMimeType: 'application/json',
            responseJsonSchema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
          },
        },
        warnings: [],
      },
    },
    {
      name: 'ignorable fields become warnings',
      input: base({ user: 'u', metadata: { a: 'b' }, store: true, parallel_tool_calls: true, service_tier: 'auto' }),
      want: {
        body: { contents: hi },
        warnings: [
          'ignored_param:user',
          'ignored_param:metadata',
          'ignored_param:store',
          'ignored_param:parallel_tool_calls',
          'ignored_param:service_tier',
        ],
      },
    },
    {
      name: 'modalities',
      input: base({ modalities: ['text', 'image'] }),
      want: { body: { contents: hi, generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }, warnings: [] },
    },
    {
      name: 'thinking enabled',
      input: base({ thinking: { type: 'enabled', budget_tokens: 1024 } }),
      want: {
        body: { contents: hi, generationConfig: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } } },
        warnings: [],
      },
    },
    {
      name: 'thinking budget 0 stays 0',
      input: base({ thinking: { type: 'enabled', budget_tokens: 0 } }),
      want: {
        body: { contents: hi, generationConfig: { thinkingConfig: { thinkingBudget: 0, includeThoughts: true } } },
        warnings: [],
      },
    },
    {
      name: 'reasoning_effort on Gemini 3 → thinkingLevel',
      input: base({ model: 'gemini-3-flash-preview', reasoning_effort: 'low' }),
      want: { body: { contents: hi, generationConfig: { thinkingConfig: { thinkingLevel: 'LOW' } } }, warnings: [] },
    },
    {
      name: 'thinking enabled without a budget plus reasoning_effort on Gemini 3 → level with thought summaries',
      input: base({ model: 'gemini-3-flash-preview', thinking: { type: 'enabled' }, reasoning_effort: 'low' }),
      want: { body: { contents: hi, generationConfig: { thinkingConfig: { thinkingLevel: 'LOW', includeThoughts: true } } }, warnings: [] },
    },
    {
      name: 'thinking with a budget wins over reasoning_effort (warned)',
      input: base({ model: 'gemini-3-flash-preview', thinking: { type: 'enabled', budget_tokens: 64 }, reasoning_effort: 'low' }),
      want: {
        body: { contents: hi, generationConfig: { thinkingConfig: { thinkingBudget: 64, includeThoughts: true } } },
        warnings: ['ignored_param:reasoning_effort'],
      },
    },
    {
      name: 'reasoning_effort on 2.5 is ignored with a warning',
      input: base({ reasoning_effort: 'low' }),
      want: { body: { contents: hi }, warnings: ['ignored_param:reasoning_effort'] },
    },
    {
      name: 'target model decides capabilities',
      input: base({ reasoning_effort: 'high' }),
      target: { model: 'gemini-3.1-pro-preview' },
      want: { body: { contents: hi, generationConfig: { thinkingConfig: { thinkingLevel: 'HIGH' } } }, warnings: [] },
    },
  ])('$name', ({ input, target: t, want }) => {
    const frozen = structuredClone(input);
    expect(convertRequest(input, { ...target, ...t })).toStrictEqual(want);
    expect(input).toStrictEqual(frozen);
  });

  it.each<{ name: string; input: ChatCompletionRequest; target?: Partial<Target>; param: string }>([
    { name: 'logprobs', input: base({ logprobs: true }), param: 'logprobs' },
    {
      name: 'malformed data URI names message and part',
      input: base({
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
          { role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: 'data:image/png,abc' } }] },
        ],
      }),
      param: 'messages[2].content[1]',
    },
    {
      name: 'only system messages',
      input: base({ messages: [{ role: 'system', content: 'x' }] }),
      param: 'messages',
    },
  ])('400: $name', ({ input, target: t, param }) => {
    let err: unknown;
    try {
      convertRequest(input, { ...target, ...t });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).param).toStrictEqual(param);
  });
});
