/**
 * Vertex `ListPublisherModels` pages (`GET /v1beta1/publishers/google/models`, vertex-ai.md §1.2)
 * → provider-neutral models. Pure and lenient. Publisher models carry no generation methods, so
 * what a model serves is told from its id: `*embedding*` models embed, other `gemini-*` models
 * chat; the rest (Imagen, Veo, Chirp, …) are left out, since no gateway route calls them.
 */
import { z } from 'zod';
import type { ProviderModel } from '../provider.js';

const WirePublisherModels = z.looseObject({
  publisherModels: z.array(z.looseObject({ name: z.string().nullish() })).nullish(),
});

export function convertVertexModelList(pages: unknown[]): ProviderModel[] {
  const out: ProviderModel[] = [];
  const seen = new Set<string>();
  for (const page of pages) {
    const parsed = WirePublisherModels.safeParse(page);
    if (!parsed.success) continue;
    for (const m of parsed.data.publisherModels ?? []) {
      if (!m.name) continue;
      const id = m.name.slice(m.name.lastIndexOf('/') + 1);
      const capability = id.includes('embedding') ? 'embeddings' : id.startsWith('gemini-') ? 'chat' : undefined;
      if (capability === undefined || id === '' || seen.has(id)) continue;
      seen.add(id);
      out.push({ id, ownedBy: 'google', capabilities: [capability] });
    }
  }
  return out;
}
