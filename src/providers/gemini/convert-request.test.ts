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
      input: base({ user: 'u', metadata: { a: 'b' }, store: true, parallel_tool_calls: true }),
      want: {
        body: { contents: hi },
        warnings: ['ignored_param:user', 'ignored_param:metadata', 'ignored_param:store', 'ignored_param:parallel_tool_calls'],
      },
    },
    {
      name: 'web_search_options → googleSearch; context size and location have no Gemini field (warnings)',
      input: base({
        web_search_options: {
          search_context_size: 'high',
          user_location: { type: 'approximate', approximate: { city: 'London', country: 'GB' } },
        },
      }),
      want: {
        body: { contents: hi, tools: [{ googleSearch: {} }] },
        warnings: ['ignored_param:web_search_options.search_context_size', 'ignored_param:web_search_options.user_location'],
      },
    },
    {
      name: 'web_search_options next to the grounding_search tool sends googleSearch once',
      input: base({ web_search_options: {}, tools: [{ type: 'function', function: { name: 'grounding_search' } }] }),
      want: { body: { contents: hi, tools: [{ googleSearch: {} }] }, warnings: [] },
    },
    {
      name: 'url_context in both tool forms → one urlContext, beside googleSearch',
      input: base({
        tools: [{ type: 'url_context' }, { type: 'function', function: { name: 'url_context' } }],
        web_search_options: {},
      }),
      want: { body: { contents: hi, tools: [{ urlContext: {} }, { googleSearch: {} }] }, warnings: [] },
    },
    {
      name: 'logprobs and top_logprobs → responseLogprobs and logprobs',
      input: base({ model: 'gemini-2.0-flash', logprobs: true, top_logprobs: 3 }),
      want: { body: { contents: hi, generationConfig: { responseLogprobs: true, logprobs: 3 } }, warnings: [] },
    },
    {
      name: 'logprobs: false sends nothing',
      input: base({ logprobs: false }),
      want: { body: { contents: hi }, warnings: [] },
    },
    {
      name: 'n and seed → candidateCount and seed',
      input: base({ n: 3, seed: 42 }),
      want: { body: { contents: hi, generationConfig: { candidateCount: 3, seed: 42 } }, warnings: [] },
    },
    ...(
      [
        ['default', 'standard'],
        ['flex', 'flex'],
        ['priority', 'priority'],
      ] as const
    ).map(([tier, want]) => ({
      name: `service_tier ${tier} → serviceTier ${want}`,
      input: base({ service_tier: tier }),
      want: { body: { contents: hi, serviceTier: want }, warnings: [] },
    })),
    {
      name: 'service_tier auto sends none',
      input: base({ service_tier: 'auto' }),
      want: { body: { contents: hi }, warnings: [] },
    },
    {
      name: 'service_tier default on a model without tiers sends none',
      input: base({ model: 'gemini-2.0-flash', service_tier: 'default' }),
      want: { body: { contents: hi }, warnings: [] },
    },
    {
      name: 'cached_content and safety_settings',
      input: base({
        cached_content: 'cachedContents/abc-123',
        safety_settings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }],
      }),
      want: {
        body: {
          contents: hi,
          safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }],
          cachedContent: 'cachedContents/abc-123',
        },
        warnings: [],
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
    { name: 'logprobs on a model that refuses them', input: base({ logprobs: true }), param: 'logprobs' },
    { name: 'top_logprobs without logprobs', input: base({ model: 'gemini-2.0-flash', top_logprobs: 2 }), param: 'top_logprobs' },
    { name: 'n > 1 on Gemini 3', input: base({ model: 'gemini-3-flash-preview', n: 2 }), param: 'n' },
    { name: 'seed beyond int32', input: base({ seed: 2 ** 31 }), param: 'seed' },
    { name: 'service_tier Gemini lacks', input: base({ service_tier: 'scale' }), param: 'service_tier' },
    { name: 'flex on a model without tiers', input: base({ model: 'gemini-2.0-flash', service_tier: 'flex' }), param: 'service_tier' },
    { name: 'url_context on an image model', input: base({ model: 'gemini-2.5-flash-image', tools: [{ type: 'url_context' }] }), param: 'tools' },
    { name: 'web search on a TTS model', input: base({ model: 'gemini-2.5-flash-preview-tts', web_search_options: {} }), param: 'web_search_options' },
    {
      name: 'cached_content next to a system message',
      input: base({ cached_content: 'cachedContents/x', messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'Hi' }] }),
      param: 'cached_content',
    },
    {
      name: 'cached_content next to tools',
      input: base({ cached_content: 'cachedContents/x', tools: [{ type: 'code_execution' }] }),
      param: 'cached_content',
    },
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
    if ((err as InvalidRequestError).code === 'unsupported_parameter' && param !== 'service_tier') {
      expect((err as Error).message).toContain(input.model);
    }
  });
});
