/**
 * Gemini `ListModels` pages (gemini-wire §14.2) → provider-neutral models. Pure.
 *
 * A model serves chat when its `supportedGenerationMethods` list `generateContent`, embeddings
 * when they list `embedContent`; models serving neither (e.g. `predict`-only image or video
 * models) are left out, since no gateway route can call them. Ids are the bare ids clients send
 * (`models/` stripped). Lenient: an entry without a name is skipped, not an error.
 */
import { z } from 'zod';
import type { ProviderModel } from '../provider.js';

const WireModelPage = z.looseObject({
  models: z
    .array(z.looseObject({ name: z.string().nullish(), supportedGenerationMethods: z.array(z.string()).nullish() }))
    .nullish(),
});

export function convertModelList(pages: unknown[]): ProviderModel[] {
  const out: ProviderModel[] = [];
  const seen = new Set<string>();
  for (const page of pages) {
    const parsed = WireModelPage.safeParse(page);
    if (!parsed.success) continue;
    for (const m of parsed.data.models ?? []) {
      if (!m.name) continue;
      const id = m.name.startsWith('models/') ? m.name.slice('models/'.length) : m.name;
      const methods = m.supportedGenerationMethods ?? [];
      const capabilities: Array<'chat' | 'embeddings'> = [];
      if (methods.includes('generateContent')) capabilities.push('chat');
      if (methods.includes('embedContent')) capabilities.push('embeddings');
      if (capabilities.length === 0 || seen.has(id)) continue;
      seen.add(id);
      out.push({ id, ownedBy: 'google', capabilities });
    }
  }
  return out;
}
