import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../errors.js';
import type { ChatCompletionChunk } from '../../openai/chat-response.js';
import { GeminiStreamTranslator } from './stream.js';

let n = 0;
function translate(chunks: unknown[], options: { strict?: boolean; includeUsage?: boolean } = {}) {
  n = 0;
  const t = new GeminiStreamTranslator({
    model: 'gemini-2.5-flash',
    strictCompliance: options.strict ?? true,
    includeUsage: options.includeUsage ?? false,
    newId: () => `id${++n}`,
    now: () => 1_700_000_000_000,
  });
  const out: ChatCompletionChunk[] = [];
  for (const c of chunks) out.push(...t.push(c));
  out.push(...t.finish());
  return { out, outcome: t.outcome() };
}

/** Just the choices (index, delta, finish) and usage of each chunk: the envelope is tested once. */
const view = (chunks: ChatCompletionChunk[]) =>
  chunks.map((c) => ({
    choices: c.choices.map((ch) => [ch.index, ch.delta, ch.finish_reason]),
    ...(c.usage !== undefined ? { usage: c.usage } : {}),
  }));

const chunk = (parts: unknown[], extra: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({
  candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
  responseId: 'r1',
  usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, thoughtsTokenCount: 1, totalTokenCount: 7 },
  ...top,
});

describe('GeminiStreamTranslator', () => {
  it('envelope: same id on every chunk, created in seconds, requested model', () => {
    const { out } = translate([chunk([{ text: 'a' }], { finishReason: 'STOP' })]);
    expect(out.map((c) => [c.id, c.object, c.created, c.model])).toStrictEqual([
      ['chatcmpl-r1', 'chat.completion.chunk', 1_700_000_000, 'gemini-2.5-flash'],
      ['chatcmpl-r1', 'chat.completion.chunk', 1_700_000_000, 'gemini-2.5-flash'],
    ]);
  });

  it.each<{ name: string; chunks: unknown[]; strict?: boolean; includeUsage?: boolean; want: unknown }>([
    {
      name: 'text: role first, finish last',
      chunks: [chunk([{ text: 'Hel' }]), chunk([{ text: 'lo' }], { finishReason: 'STOP' })],
      want: [
        { choices: [[0, { role: 'assistant', content: 'Hel' }, null]] },
        { choices: [[0, { content: 'lo' }, null]] },
        { choices: [[0, {}, 'stop']] },
      ],
    },
    {
      name: 'content-less finish chunk and include_usage → one usage chunk',
      chunks: [chunk([{ text: 'Hi' }]), { candidates: [{ content: { role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 }], usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 9, totalTokenCount: 13 } }],
      includeUsage: true,
      want: [
        { choices: [[0, { role: 'assistant', content: 'Hi' }, null]] },
        { choices: [[0, {}, 'length']] },
        {
          choices: [],
          usage: {
            prompt_tokens: 4,
            completion_tokens: 9,
            total_tokens: 13,
            prompt_tokens_details: { cached_tokens: 0 },
            completion_tokens_details: { reasoning_tokens: 0 },
          },
        },
      ],
    },
    {
      name: 'a function call in the same chunk as text is not lost; indexes run across chunks',
      chunks: [
        chunk([{ text: 'Sure.' }, { functionCall: { name: 'a', args: { x: 1 } }, thoughtSignature: 'c2ln' }]),
        chunk([{ functionCall: { name: 'b', args: {} } }], { finishReason: 'STOP' }),
      ],
      want: [
        {
          choices: [
            [
              0,
              {
                role: 'assistant',
                content: 'Sure.',
                tool_calls: [{ index: 0, id: 'call-id1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } }],
              },
              null,
            ],
          ],
        },
        { choices: [[0, { tool_calls: [{ index: 1, id: 'call-id2', type: 'function', function: { name: 'b', arguments: '{}' } }] }, null]] },
        { choices: [[0, {}, 'tool_calls']] },
      ],
    },
    {
      name: 'strict off: thought signature on the call, thinking in delta.content_blocks',
      strict: false,
      chunks: [
        chunk([{ text: 'hmm', thought: true }]),
        chunk([{ functionCall: { name: 'a', args: {} }, thoughtSignature: 'c2ln' }], { finishReason: 'STOP' }),
      ],
      want: [
        { choices: [[0, { role: 'assistant', content: '', content_blocks: [{ type: 'thinking', thinking: 'hmm' }] }, null]] },
        {
          choices: [
            [0, { tool_calls: [{ index: 0, id: 'call-id1', type: 'function', function: { name: 'a', arguments: '{}', thought_signature: 'c2ln' } }] }, null],
          ],
        },
        { choices: [[0, {}, 'tool_calls']] },
      ],
    },
    {
      name: 'strict: thought text never reaches content',
      chunks: [chunk([{ text: 'hmm', thought: true }]), chunk([{ text: 'Answer' }], { finishReason: 'STOP' })],
      want: [
        { choices: [[0, { role: 'assistant', content: '' }, null]] },
        { choices: [[0, { content: 'Answer' }, null]] },
        { choices: [[0, {}, 'stop']] },
      ],
    },
    {
      name: 'strict off: trailing signature chunk with empty text',
      strict: false,
      chunks: [chunk([{ text: 'Answer' }]), chunk([{ text: '', thoughtSignature: 'c2ln' }], { finishReason: 'STOP' })],
      want: [
        { choices: [[0, { role: 'assistant', content: 'Answer' }, null]] },
        { choices: [[0, { thought_signature: 'c2ln' }, null]] },
        { choices: [[0, {}, 'stop']] },
      ],
    },
    {
      name: 'strict off: generated image in delta.content_parts',
      strict: false,
      chunks: [chunk([{ inlineData: { mimeType: 'image/png', data: 'iVBO' } }], { finishReason: 'STOP' })],
      want: [
        {
          choices: [
            [0, { role: 'assistant', content: '', content_parts: [{ type: 'image', image_url: { url: 'data:image/png;base64,iVBO' } }] }, null],
          ],
        },
        { choices: [[0, {}, 'stop']] },
      ],
    },
    {
      name: 'prompt blocked → content_filter, never a clean stop',
      chunks: [{ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 } }],
      want: [{ choices: [[0, { role: 'assistant', content: null }, null]] }, { choices: [[0, {}, 'content_filter']] }],
    },
    {
      name: 'two candidates',
      chunks: [
        {
          candidates: [
            { content: { parts: [{ text: 'A' }] }, index: 0, finishReason: 'STOP' },
            { content: { parts: [{ text: 'B' }] }, index: 1, finishReason: 'SAFETY' },
          ],
        },
      ],
      want: [
        { choices: [[0, { role: 'assistant', content: 'A' }, null]] },
        { choices: [[1, { role: 'assistant', content: 'B' }, null]] },
        { choices: [[0, {}, 'stop']] },
        { choices: [[1, {}, 'content_filter']] },
      ],
    },
  ])('$name', ({ chunks, strict, includeUsage, want }) => {
    expect(view(translate(chunks, { strict: strict ?? true, includeUsage: includeUsage ?? false }).out)).toStrictEqual(want);
  });

  it('outcome', () => {
    const { outcome } = translate([chunk([{ text: 'a' }], { finishReason: 'STOP' }, { modelVersion: 'gemini-2.5-flash-001' })]);
    expect(outcome).toStrictEqual({
      responseId: 'r1',
      responseModel: 'gemini-2.5-flash-001',
      finishReasons: ['stop'],
      usage: { inputTokens: 4, outputTokens: 3, reasoningTokens: 1, cachedInputTokens: 0 },
      warnings: [],
    });
  });

  it.each([
    { name: 'in-stream error chunk', chunks: [chunk([{ text: 'a' }]), { error: { code: 503, message: 'overloaded' } }], status: 503 },
    { name: 'ended without finish reason', chunks: [chunk([{ text: 'a' }])], status: 502 },
    { name: 'no chunks at all', chunks: [], status: 502 },
  ])('throws UpstreamError: $name', ({ chunks, status }) => {
    let err: unknown;
    try {
      translate(chunks);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).status).toStrictEqual(status);
  });
  it('starts a code block on its own line when the text before it came in an earlier chunk', () => {
    const { out } = translate([
      chunk([{ text: 'Running' }]),
      chunk([{ executableCode: { language: 'PYTHON', code: 'print(1)' } }]),
      chunk([{ codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } }]),
      chunk([{ text: 'Done.' }], { finishReason: 'STOP' }),
    ]);
    expect(out.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Running\n```python\nprint(1)\n```\n```\n1\n```\nDone.');
  });
});

describe('GeminiStreamTranslator content_parts (strict compliance off)', () => {
  const entries = (out: ChatCompletionChunk[]) => out.flatMap((c) => c.choices.flatMap((ch) => ch.delta.content_parts ?? []));

  it('never adds content_parts to a text-only stream, as a non-streamed text answer has none', () => {
    const { out } = translate([chunk([{ text: 'Hel' }]), chunk([{ text: 'lo' }], { finishReason: 'STOP' })], { strict: false });
    expect(entries(out)).toStrictEqual([]);
  });

  it('sends the text seen so far ahead of the first structured part, then every part', () => {
    const { out } = translate(
      [
        chunk([{ text: 'Let me run it.' }]),
        chunk([{ text: ' Here:' }]),
        chunk([{ executableCode: { language: 'PYTHON', code: 'print(2)' } }]),
        chunk([{ codeExecutionResult: { outcome: 'OUTCOME_OK', output: '2\n' } }, { text: 'Two.' }], { finishReason: 'STOP' }),
      ],
      { strict: false },
    );
    expect(entries(out)).toStrictEqual([
      { type: 'text', text: 'Let me run it.' },
      { type: 'text', text: ' Here:' },
      { type: 'executable_code', language: 'python', code: 'print(2)' },
      { type: 'code_execution_result', outcome: 'OUTCOME_OK', output: '2\n' },
      { type: 'text', text: 'Two.' },
    ]);
    // The early text went out as content when it arrived, not held back.
    expect(out[0]!.choices[0]!.delta.content).toBe('Let me run it.');
  });
});
