import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import type { Target } from '../provider.js';
import { prepareOpenAIBody } from './prepare-openai-body.js';

const target: Target = { provider: 'openai', apiKey: 'k', baseUrl: 'http://x', strictCompliance: true, timeoutMs: 1000 };
const messages: ChatCompletionRequest['messages'] = [{ role: 'user', content: 'hi' }];

describe('prepareOpenAIBody', () => {
  it('passes a plain request through', () => {
    expect(prepareOpenAIBody({ model: 'gpt-4o', messages, temperature: 0.2 }, target, false)).toStrictEqual({
      body: { model: 'gpt-4o', messages, temperature: 0.2 },
      model: 'gpt-4o',
      clientWantsStreamUsage: false,
      warnings: [],
    });
  });

  it('sends the request as routing merged it, with the target model', () => {
    const prepared = prepareOpenAIBody({ model: 'gemini-2.5-flash', messages, max_tokens: 99 }, { ...target, model: 'gpt-4.1' }, false);
    expect(prepared.body).toStrictEqual({ model: 'gpt-4.1', messages, max_tokens: 99 });
  });

  it('keeps the streaming mode routing chose and asks for usage', () => {
    const prepared = prepareOpenAIBody({ model: 'm', messages, stream: true }, target, true);
    expect(prepared.body).toStrictEqual({ model: 'm', messages, stream: true, stream_options: { include_usage: true } });
    expect(prepared.clientWantsStreamUsage).toBe(false);
    expect(prepareOpenAIBody({ model: 'm', messages, stream: true, stream_options: { include_usage: true } }, target, true).clientWantsStreamUsage).toBe(true);
  });

  it('drops stream fields from a non-streaming call', () => {
    expect(prepareOpenAIBody({ model: 'm', messages, stream: false, stream_options: { include_usage: true } }, target, false).body).toStrictEqual({
      model: 'm',
      messages,
    });
  });

  it('drops the Gemini-only extensions (cached_content, safety_settings, video_metadata, file detail) with warnings', () => {
    const request: ChatCompletionRequest = {
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://youtu.be/x', detail: 'low', video_metadata: { fps: 1 } } },
            { type: 'file', file: { file_id: 'f1', detail: 'high', video_metadata: { start_offset: '1s' } } },
          ],
        },
      ],
      cached_content: 'cachedContents/a',
      safety_settings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'OFF' }],
    };
    const frozen = structuredClone(request);
    const prepared = prepareOpenAIBody(request, target, false);
    expect(prepared.body).toStrictEqual({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://youtu.be/x', detail: 'low' } },
            { type: 'file', file: { file_id: 'f1' } },
          ],
        },
      ],
    });
    expect(prepared.warnings).toStrictEqual(['openai.cached_content_ignored', 'openai.safety_settings_ignored']);
    expect(request).toStrictEqual(frozen);
  });

  it("removes sidegate's non-OpenAI fields without touching the input", () => {
    const request: ChatCompletionRequest = {
      model: 'm',
      thinking: { type: 'enabled', budget_tokens: 100 },
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/files/1', mime_type: 'image/png' } }] },
        {
          role: 'assistant',
          content: 'ok',
          content_parts: [{ type: 'text', text: 'ok' }],
          content_blocks: [{ type: 'thinking', thinking: 'hmm' }],
          thought_signature: 'sig',
          tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'f', arguments: '{}', thought_signature: 'sig2' } }],
        },
        { role: 'tool', tool_call_id: 'call-1', content: 'done' },
      ],
    };
    const before = structuredClone(request);
    const prepared = prepareOpenAIBody(request, target, false);
    expect(prepared.body).toStrictEqual({
      model: 'm',
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/files/1' } }] },
        { role: 'assistant', content: 'ok', tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call-1', content: 'done' },
      ],
    });
    expect(prepared.warnings).toStrictEqual(['openai.thinking_ignored']);
    expect(request).toStrictEqual(before);
  });
});
