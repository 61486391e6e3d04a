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
