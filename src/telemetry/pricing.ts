/**
 * Prices of Gemini models in USD per 1M tokens (reference gemini-wire.md §15 and
 * gemini-more-fields.md §11, paid tier, standard; re-verify against
 * ai.google.dev/gemini-api/docs/pricing before billing on them). Kept as this table rather than a
 * price library: docs/gemini-fields.md has the evaluation of @pydantic/genai-prices.
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
  /** Prompt tokens that are audio, and their cached rate (2.5 Flash, 3 Flash: audio costs more). */
  inputAudio?: number;
  cachedInputAudio?: number;
  /** Output tokens that are audio (TTS models). */
  outputAudio?: number;
}

export type PricingTable = Readonly<Record<string, ModelPrice>>;

export const LONG_PROMPT_THRESHOLD = 200_000;

export const DEFAULT_PRICING: PricingTable = Object.freeze({
  'gemini-2.5-pro': { input: 1.25, output: 10, cachedInput: 0.125, inputLong: 2.5, outputLong: 15, cachedInputLong: 0.25 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cachedInput: 0.03, inputAudio: 1, cachedInputAudio: 0.1 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cachedInput: 0.01 },
  'gemini-2.5-flash-image': { input: 0.3, output: 2.5, imageOutput: 30 },
  'gemini-3-pro-preview': { input: 2, output: 12, cachedInput: 0.2, inputLong: 4, outputLong: 18, cachedInputLong: 0.4 },
  'gemini-3.1-pro-preview': { input: 2, output: 12, cachedInput: 0.2, inputLong: 4, outputLong: 18, cachedInputLong: 0.4 },
  'gemini-3-flash-preview': { input: 0.5, output: 3, cachedInput: 0.05, inputAudio: 1, cachedInputAudio: 0.1 },
  'gemini-3-pro-image-preview': { input: 2, output: 12, imageOutput: 120 },
  'gemini-3-pro-image': { input: 2, output: 12, imageOutput: 120 },
  'gemini-2.5-computer-use-preview-10-2025': { input: 1.25, output: 10, inputLong: 2.5, outputLong: 15 },
  'gemini-3.5-flash': { input: 1.5, output: 9, cachedInput: 0.15 },
  'gemini-pro-latest': { input: 2, output: 12, cachedInput: 0.2, inputLong: 4, outputLong: 18, cachedInputLong: 0.4 },
  'gemini-flash-latest': { input: 0.5, output: 3, cachedInput: 0.05, inputAudio: 1, cachedInputAudio: 0.1 },
  // TTS: text in, audio out (gemini-more-fields §11).
  'gemini-2.5-flash-preview-tts': { input: 0.5, output: 10, outputAudio: 10 },
  'gemini-2.5-pro-preview-tts': { input: 1, output: 20, outputAudio: 20 },
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

/** Flex is billed at half the standard price (Gemini optimization page); batch is not served here. */
const TIER_FACTOR: Readonly<Record<string, number>> = { standard: 1, flex: 0.5 };

/**
 * Cost of one billed call in USD (formula of gemini-more-fields.md §11), or undefined when the
 * model is unknown, or when the tier that served it has no exact price (`priority` is documented
 * only as "75 to 100 % more"): no cost rather than a wrong one.
 */
export function computeCostUsd(table: PricingTable, model: string, usage: NormalizedUsage): number | undefined {
  const price = findModelPrice(table, model);
  if (price === undefined) return undefined;
  const factor = TIER_FACTOR[usage.serviceTier ?? 'standard'];
  if (factor === undefined) return undefined;
  const long = usage.inputTokens > LONG_PROMPT_THRESHOLD;
  const inRate = (long ? price.inputLong : undefined) ?? price.input;
  const outRate = (long ? price.outputLong : undefined) ?? price.output;
  const cachedRate = (long ? price.cachedInputLong : undefined) ?? price.cachedInput ?? inRate;
  const audioInRate = price.inputAudio ?? inRate;
  const cachedAudioRate = price.cachedInputAudio ?? cachedRate;
  const imageTokens = usage.imageOutputTokens ?? 0;
  const imageRate = price.imageOutput ?? outRate;
  const audioOutTokens = usage.audioOutputTokens ?? 0;
  const audioOutRate = price.outputAudio ?? outRate;
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const cachedAudio = Math.min(usage.cachedAudioInputTokens ?? 0, cached);
  const audio = Math.max(usage.audioInputTokens ?? 0, cachedAudio);
  // `inputTokens` already includes tool-use prompt tokens (NormalizedUsage): counted once here.
  // Each prompt token is exactly one of: uncached other, uncached audio, cached other, cached audio.
  const inputCost =
    Math.max(0, usage.inputTokens - audio - (cached - cachedAudio)) * inRate +
    (audio - cachedAudio) * audioInRate +
    (cached - cachedAudio) * cachedRate +
    cachedAudio * cachedAudioRate;
  // Output includes thinking tokens, billed at the output rate.
  const outputCost =
    Math.max(0, usage.outputTokens - imageTokens - audioOutTokens) * outRate + imageTokens * imageRate + audioOutTokens * audioOutRate;
  // Round to a nano-dollar so float noise does not show in traces.
  return Math.round(((inputCost + outputCost) * factor / 1_000_000) * 1e9) / 1e9;
}

/** Validates one price entry of an override file; null when malformed. */
export function parseModelPrice(value: unknown): ModelPrice | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const keys = ['input', 'output', 'cachedInput', 'inputLong', 'outputLong', 'cachedInputLong', 'imageOutput', 'inputAudio', 'cachedInputAudio', 'outputAudio'];
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
      throw new Error(`SIDEGATE_PRICING_FILE: bad entry for ${model}; want {input, output, cachedInput?, inputLong?, outputLong?, cachedInputLong?, imageOutput?, inputAudio?, cachedInputAudio?, outputAudio?}`);
    }
    table[model] = price;
  }
  return Object.freeze(table);
}
