/**
 * Provider models → OpenAI's model list (`GET /v1/models`,
 * https://platform.openai.com/docs/api-reference/models/list). Pure.
 *
 * Adds the model aliases of the alias table (Google's `-latest` aliases, gemini-wire §15) when the
 * upstream list holds the model they point at but not the alias itself, so a client can discover
 * them. Upstream lists carry no creation time; `created` is 0 rather than an invented date.
 */
import type { ProviderModel } from '../providers/provider.js';

export interface OpenAIModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

export interface OpenAIModelList {
  object: 'list';
  data: OpenAIModel[];
}

/** Alias → the model it currently points at (gemini-wire §15, as of 2026-01-21). */
export const MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  'gemini-flash-latest': 'gemini-3-flash-preview',
  'gemini-pro-latest': 'gemini-3-pro-preview',
});

export function toOpenAIModels(models: readonly ProviderModel[], aliases: Readonly<Record<string, string>> = MODEL_ALIASES): OpenAIModelList {
  const data: OpenAIModel[] = models.map((m) => ({ id: m.id, object: 'model', created: 0, owned_by: m.ownedBy }));
  const ids = new Set(data.map((m) => m.id));
  for (const [alias, target] of Object.entries(aliases)) {
    const pointed = models.find((m) => m.id === target);
    if (pointed && !ids.has(alias)) {
      data.push({ id: alias, object: 'model', created: 0, owned_by: pointed.ownedBy });
      ids.add(alias);
    }
  }
  return { object: 'list', data };
}
