/**
 * Prices of Gemini models in USD per 1M tokens (reference gemini-wire.md §15, paid tier,
 * standard; re-verify against ai.google.dev/gemini-api/docs/pricing before billing on them).
 * Overridable with a JSON file named by `SIDEGATE_PRICING_FILE` of the same shape, merged over
 * the built-in table. Pure apart from `loadPricingTable`, which reads that file once at startup.
 */
import { readFileSync } from 'node:fs';
import type { NormalizedUsage } from '../providers/provider.js';

export interface ModelPrice {
  input: number;
  output: number;
  cachedInput?: number;
  /** Rates above LONG_PROMPT_THRESHOLD prompt tokens, for tiered models. */
  inputLong?: number;
  outputLong?: number;
  cachedInputLong?: number;
  /** Output tokens that are images. */
  imageOutput?: number;
}

export type PricingTable = Readonly<Record<string, ModelPrice>>;

export const LONG_PROMPT_THRESHOLD = 200_000;

export const DEFAULT_PRICING: PricingTable = Object.freeze({
  'gemini-2.5-pro': { input: 1.25, output: 10, cachedInput: 0.125, inputLong: 2.5, outputLong: 15, cachedInputLong: 0.25 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cachedInput: 0.03 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cachedInput: 0.01 },
  'gemini-2.5-flash-image': { input: 0.3, output: 2.5, imageOutput: 30 },
  'gemini-3-pro-preview': { input: 2, output: 12, cachedInput: 0.2, inputLong: 4, outputLong: 18, cachedInputLong: 0.4 },
  'gemini-3.1-pro-preview': { input: 2, output: 12, cachedInput: 0.2, inputLong: 4, outputLong: 18, cachedInputLong: 0.4 },
  'gemini-3-flash-preview': { input: 0.5, output: 3, cachedInput: 0.05 },
  'gemini-3-pro-image-preview': { input: 2, output: 12, imageOutput: 120 },
  'gemini-3-pro-image': { input: 2, output: 12, imageOutput: 120 },
  'gemini-2.5-computer-use-preview-10-2025': { input: 1.25, output: 10, inputLong: 2.5, outputLong: 15 },
  'gemini-3.5-flash': { input: 1.5, output: 9 },
  'gemini-pro-latest': { input: 2, output: 12, cachedInput: 0.2, inputLong: 4, outputLong: 18, cachedInputLong: 0.4 },
  'gemini-flash-latest': { input: 0.5, output: 3, cachedInput: 0.05 },
  // Embeddings bill input tokens only (Gemini API pricing page, paid tier).
  'gemini-embedding-001': { input: 0.15, output: 0 },
});

/** The price of a model: exact id, else the longest table key that prefixes it (`gemini-2.5-flash-001`). */
export function findModelPrice(table: PricingTable, model: string): ModelPrice | undefined {
  const id = model.startsWith('models/') ? model.slice('models/'.length) : model;
  const exact = table[id];
  if (exact !== undefined) return exact;
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (id.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

/** Cost of one billed call in USD (formula of gemini-wire.md §15), or undefined for an unknown model. */
export function computeCostUsd(table: PricingTable, model: string, usage: NormalizedUsage): number | undefined {
  const price = findModelPrice(table, model);
  if (price === undefined) return undefined;
  const long = usage.inputTokens > LONG_PROMPT_THRESHOLD;
  const inRate = (long ? price.inputLong : undefined) ?? price.input;
  const outRate = (long ? price.outputLong : undefined) ?? price.output;
  const cachedRate = (long ? price.cachedInputLong : undefined) ?? price.cachedInput ?? inRate;
  const imageTokens = usage.imageOutputTokens ?? 0;
  const imageRate = price.imageOutput ?? outRate;
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  // `inputTokens` already includes tool-use prompt tokens (NormalizedUsage): counted once here.
  const inputCost = (usage.inputTokens - cached) * inRate + cached * cachedRate;
  const outputCost = Math.max(0, usage.outputTokens - imageTokens) * outRate + imageTokens * imageRate;
  // Round to a nano-dollar so float noise does not show in traces.
  return Math.round(((inputCost + outputCost) / 1_000_000) * 1e9) / 1e9;
}

/** Validates one price entry of an override file; null when malformed. */
export function parseModelPrice(value: unknown): ModelPrice | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const keys = ['input', 'output', 'cachedInput', 'inputLong', 'outputLong', 'cachedInputLong', 'imageOutput'];
  for (const key of Object.keys(v)) if (!keys.includes(key)) return null;
  for (const key of keys) {
    const n = v[key];
    if (n === undefined && key !== 'input' && key !== 'output') continue;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return null;
  }
  return v as unknown as ModelPrice;
}

/**
 * The built-in table, with the entries of `file` (if given) merged over it. Throws with the
 * variable's name when the file is unreadable or malformed: a sidegate setting fails at startup.
 */
export function loadPricingTable(file: string | undefined): PricingTable {
  if (file === undefined || file.trim() === '') return DEFAULT_PRICING;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`SIDEGATE_PRICING_FILE: cannot read ${file} as JSON (${(err as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('SIDEGATE_PRICING_FILE: expected a JSON object of model id → prices per 1M tokens');
  }
  const table: Record<string, ModelPrice> = { ...DEFAULT_PRICING };
  for (const [model, value] of Object.entries(parsed)) {
    const price = parseModelPrice(value);
    if (price === null) {
      throw new Error(`SIDEGATE_PRICING_FILE: bad entry for ${model}; want {input, output, cachedInput?, inputLong?, outputLong?, cachedInputLong?, imageOutput?}`);
    }
    table[model] = price;
  }
  return Object.freeze(table);
}
