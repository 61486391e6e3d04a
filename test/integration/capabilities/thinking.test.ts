/**
 * Extended thinking (issue 3 item 6; gemini-wire §2.6, §3.4): `thinking` → `thinkingConfig`
 * (`thinkingBudget` + `includeThoughts`), `budget_tokens: 0` → `thinkingBudget: 0`; thought
 * parts never reach `content`: they are `message.content_blocks` (non-streaming) and
 * `delta.content_blocks` (streaming) with strict compliance off, and absent with it on.
 * `reasoning_effort` → `thinkingLevel` only on models that take it (Gemini 3+).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { collect, deltas, finishReason, geminiChunk, geminiReply, NON_STRICT, streamedText } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const question = 'why is the sky blue?';
// The emulator's thought summary and answer for `question`.
const thought = `**Considering the request**\nThe user wrote: ${question}`;
const answer = `Echo: ${question}`;
const contents = [{ role: 'user', parts: [{ text: question }] }];

const ask = (thinking: unknown, extra: Record<string, unknown> = {}) =>
  ({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: question }], thinking, ...extra }) as never;

describe('thinkingConfig', () => {
  it.each([
    { thinking: { type: 'enabled', budget_tokens: 2048 }, config: { thinkingBudget: 2048, includeThoughts: true } },
    { thinking: { type: 'enabled', budget_tokens: 0 }, config: { thinkingBudget: 0, includeThoughts: true } },
    { thinking: { type: 'enabled' }, config: { includeThoughts: true } },
    { thinking: { type: 'disabled' }, config: { thinkingBudget: 0 } },
  ])('maps $thinking to $config', async ({ thinking, config }) => {
    await h.client.chat.completions.create(ask(thinking), NON_STRICT);
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents, generationConfig: { thinkingConfig: config } });
  });
});

describe('thought text', () => {
  it('keeps thoughts out of content and returns them as content_blocks with strict compliance off', async () => {
    const loose = await h.client.chat.completions.create(ask({ type: 'enabled', budget_tokens: 1024 }), NON_STRICT);
    const message = loose.choices[0]!.message as unknown as Record<string, unknown>;
    expect(message.content).toBe(answer);
    expect(message.content_blocks).toStrictEqual([{ type: 'thinking', thinking: thought }]);
    expect(loose.usage?.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);

    const strict = await h.client.chat.completions.create(ask({ type: 'enabled', budget_tokens: 1024 }));
    expect(strict.choices[0]!.message.content).toBe(answer);
    expect(strict.choices[0]!.message).not.toHaveProperty('content_blocks');
    expect(JSON.stringify(strict)).not.toContain('Considering the request');
  });

  it('budget_tokens 0 means no thinking: no content_blocks and no reasoning tokens', async () => {
    const loose = await h.client.chat.completions.create(ask({ type: 'enabled', budget_tokens: 0 }), NON_STRICT);
    expect(loose.choices[0]!.message.content).toBe(answer);
    expect(loose.choices[0]!.message).not.toHaveProperty('content_blocks');
    expect(loose.usage?.completion_tokens_details?.reasoning_tokens ?? 0).toBe(0);
  });

  it('keeps a thought signature on its content block', async () => {
    h.emulator.enqueue(geminiReply([{ text: 'Rayleigh scattering…', thought: true, thoughtSignature: 'c2lnLTE=' }, { text: 'Scattering.' }]));
    const loose = await h.client.chat.completions.create(ask({ type: 'enabled', budget_tokens: 1024 }), NON_STRICT);
    const message = loose.choices[0]!.message as unknown as Record<string, unknown>;
    expect(message.content).toBe('Scattering.');
    expect(message.content_blocks).toStrictEqual([{ type: 'thinking', thinking: 'Rayleigh scattering…', signature: 'c2lnLTE=' }]);
  });

  it('streams thoughts as delta.content_blocks, never as delta.content', async () => {
    const loose = await collect(await h.client.chat.completions.create(ask({ type: 'enabled', budget_tokens: 1024 }, { stream: true }), NON_STRICT));
    expect(h.emulator.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents, generationConfig: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } } });
    expect(streamedText(loose)).toBe(answer);
    const blocks = deltas(loose).flatMap((d) => (d.content_blocks as Array<{ type: string; thinking: string }> | undefined) ?? []);
    expect(blocks.every((b) => b.type === 'thinking')).toBe(true);
    expect(blocks.map((b) => b.thinking).join('')).toBe(thought);
    // Thoughts stream before the answer.
    const firstBlock = deltas(loose).findIndex((d) => d.content_blocks !== undefined);
    const firstText = deltas(loose).findIndex((d) => typeof d.content === 'string' && d.content !== '');
    expect(firstBlock).toBeLessThan(firstText);
    expect(finishReason(loose)).toBe('stop');

    const strict = await collect(await h.client.chat.completions.create(ask({ type: 'enabled', budget_tokens: 1024 }, { stream: true })));
    expect(streamedText(strict)).toBe(answer);
    expect(JSON.stringify(strict)).not.toContain('content_blocks');
    expect(JSON.stringify(strict)).not.toContain('Considering the request');
  });

  it('streams a thought that shares a chunk with answer text into the right fields', async () => {
    h.emulator.enqueue({
      chunks: [
        geminiChunk([{ text: 'thinking…', thought: true }, { text: 'Because ' }]),
        geminiChunk([{ text: 'of scattering.' }], { finishReason: 'STOP' }),
      ],
    });
    const loose = await collect(await h.client.chat.completions.create(ask({ type: 'enabled' }, { stream: true }), NON_STRICT));
    expect(streamedText(loose)).toBe('Because of scattering.');
    expect(deltas(loose).flatMap((d) => (d.content_blocks as unknown[] | undefined) ?? [])).toStrictEqual([{ type: 'thinking', thinking: 'thinking…' }]);
  });
});

describe('reasoning_effort', () => {
  it.each([
    { model: 'gemini-3-flash-preview', effort: 'minimal', generationConfig: { thinkingConfig: { thinkingLevel: 'MINIMAL' } } },
    { model: 'gemini-3-pro-preview', effort: 'high', generationConfig: { thinkingConfig: { thinkingLevel: 'HIGH' } } },
    { model: 'gemini-2.5-flash', effort: 'low', generationConfig: undefined },
  ])('$model + $effort → $generationConfig', async ({ model, effort, generationConfig }) => {
    const completion = await h.client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: question }],
      reasoning_effort: effort as 'low',
    });
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents, ...(generationConfig ? { generationConfig } : {}) });
    expect(completion.choices[0]!.message.content).toBe(answer);
  });
});
