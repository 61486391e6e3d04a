import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertUsage } from '../providers/gemini/convert-usage.js';
import { DEFAULT_PRICING, computeCostUsd, findModelPrice, loadPricingTable } from './pricing.js';

const usage = (over = {}) => ({ inputTokens: 1_000_000, outputTokens: 1_000_000, reasoningTokens: 0, cachedInputTokens: 0, ...over });

describe('computeCostUsd', () => {
  it.each([
    { name: 'flash, plain', model: 'gemini-2.5-flash', usage: usage(), want: 2.8 },
    { name: 'flash, half cached', model: 'gemini-2.5-flash', usage: usage({ cachedInputTokens: 500_000 }), want: 0.15 + 0.015 + 2.5 },
    { name: 'pro above 200k prompt tokens uses the long tier', model: 'gemini-2.5-pro', usage: usage(), want: 2.5 + 15 },
    { name: 'pro short prompt', model: 'gemini-2.5-pro', usage: usage({ inputTokens: 100_000, outputTokens: 0 }), want: 0.125 },
    { name: 'image output at the image rate', model: 'gemini-2.5-flash-image', usage: usage({ inputTokens: 0, outputTokens: 1290, imageOutputTokens: 1290 }), want: 0.0387 },
    { name: 'versioned id by prefix', model: 'models/gemini-2.5-flash-lite-001', usage: usage(), want: 0.5 },
  ])('$name', ({ model, usage: u, want }) => {
    expect(computeCostUsd(DEFAULT_PRICING, model, u)).toBeCloseTo(want, 9);
  });

  // Issue 16: the converter already adds toolUsePromptTokenCount into the input tokens; pricing
  // added it again, so 100 prompt + 1,000 tool-use tokens cost $0.000755 instead of $0.000455.
  it('prices the converter’s usage: tool-use prompt tokens are counted once', () => {
    const price = (meta: Parameters<typeof convertUsage>[0]) => computeCostUsd(DEFAULT_PRICING, 'gemini-2.5-flash', convertUsage(meta).normalized);
    const withTools = price({ promptTokenCount: 100, toolUsePromptTokenCount: 1000, candidatesTokenCount: 50 });
    const plain = price({ promptTokenCount: 1100, candidatesTokenCount: 50 });
    expect(withTools).toBe(0.000455);
    expect(withTools).toBe(plain);
  });

  // Issue 23: Google's list prices (paid tier, standard, per 1M tokens; gemini-more-fields §11):
  // gemini-2.5-flash text/image/video input $0.30, audio input $1.00, cached text $0.03, cached
  // audio $0.10, output including thinking $2.50.
  it('a call with cached, audio and thinking tokens costs the list-price arithmetic', () => {
    const { normalized } = convertUsage({
      promptTokenCount: 10_000,
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: 6_000 },
        { modality: 'AUDIO', tokenCount: 4_000 },
      ],
      cachedContentTokenCount: 5_000,
      cacheTokensDetails: [
        { modality: 'TEXT', tokenCount: 3_000 },
        { modality: 'AUDIO', tokenCount: 2_000 },
      ],
      candidatesTokenCount: 800,
      thoughtsTokenCount: 1_200,
      totalTokenCount: 12_000,
    });
    const uncachedText = (6_000 - 3_000) * 0.3; // $0.0009
    const uncachedAudio = (4_000 - 2_000) * 1.0; // $0.002
    const cachedText = 3_000 * 0.03; // $0.00009
    const cachedAudio = 2_000 * 0.1; // $0.0002
    const output = (800 + 1_200) * 2.5; // $0.005: thinking is billed as output
    const want = (uncachedText + uncachedAudio + cachedText + cachedAudio + output) / 1e6;
    expect(want).toBeCloseTo(0.00819, 12);
    expect(computeCostUsd(DEFAULT_PRICING, 'gemini-2.5-flash', normalized)).toBeCloseTo(want, 12);
  });

  it('TTS audio output at the audio output rate ($0.50 text in, $10 audio out per 1M)', () => {
    const { normalized } = convertUsage({
      promptTokenCount: 20,
      candidatesTokenCount: 500,
      candidatesTokensDetails: [{ modality: 'AUDIO', tokenCount: 500 }],
      totalTokenCount: 520,
    });
    expect(computeCostUsd(DEFAULT_PRICING, 'gemini-2.5-flash-preview-tts', normalized)).toBeCloseTo((20 * 0.5 + 500 * 10) / 1e6, 12);
  });

  it('flex is half the standard price; priority (no exact published rate) has no cost', () => {
    const flex = convertUsage({ promptTokenCount: 1_000, candidatesTokenCount: 100, serviceTier: 'flex' }).normalized;
    expect(computeCostUsd(DEFAULT_PRICING, 'gemini-2.5-flash', flex)).toBeCloseTo(((1_000 * 0.3 + 100 * 2.5) * 0.5) / 1e6, 12);
    const priority = convertUsage({ promptTokenCount: 1_000, candidatesTokenCount: 100, serviceTier: 'priority' }).normalized;
    expect(computeCostUsd(DEFAULT_PRICING, 'gemini-2.5-flash', priority)).toBeUndefined();
  });

  it('is undefined for an unknown model', () => {
    expect(computeCostUsd(DEFAULT_PRICING, 'gpt-4o', usage())).toBeUndefined();
  });

  it('prefers the longest matching prefix', () => {
    expect(findModelPrice(DEFAULT_PRICING, 'gemini-2.5-flash-lite-preview')).toStrictEqual(DEFAULT_PRICING['gemini-2.5-flash-lite']);
  });
});

describe('loadPricingTable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sidegate-pricing-'));

  it('merges a file over the built-in table', () => {
    const file = join(dir, 'ok.json');
    writeFileSync(file, JSON.stringify({ 'my-model': { input: 1, output: 2 }, 'gemini-2.5-flash': { input: 9, output: 9 } }));
    const table = loadPricingTable(file);
    expect(table['my-model']).toStrictEqual({ input: 1, output: 2 });
    expect(table['gemini-2.5-flash']).toStrictEqual({ input: 9, output: 9 });
    expect(table['gemini-2.5-pro']).toStrictEqual(DEFAULT_PRICING['gemini-2.5-pro']);
  });

  it.each([
    { name: 'not JSON', body: '{' },
    { name: 'an entry without output', body: '{"m":{"input":1}}' },
    { name: 'a negative price', body: '{"m":{"input":-1,"output":1}}' },
    { name: 'an unknown key', body: '{"m":{"input":1,"output":1,"currency":"EUR"}}' },
  ])('fails naming SIDEGATE_PRICING_FILE on $name', ({ body }) => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, body);
    expect(() => loadPricingTable(file)).toThrow(/SIDEGATE_PRICING_FILE/);
  });
});
