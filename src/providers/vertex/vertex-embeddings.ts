/**
 * Embeddings on Vertex AI: `:predict` (vertex-ai.md §1.4; what Portkey, LiteLLM and Envoy call
 * for `text-embedding-*` and `gemini-embedding-001`). Pure; composes the Gemini embeddings
 * translation, so input checks (token ids, empty strings) and the OpenAI answer are the same.
 *
 * - request: `{"instances":[{"content":text}…],"parameters":{"outputDimensionality"}}`, at most
 *   250 instances per call, and one per call for `gemini-embedding-001` (Google's limits);
 * - answer: `predictions[].embeddings.values` in order; usage from
 *   `embeddings.statistics.token_count` (snake_case in the observed answer), summed.
 */
import { z } from 'zod';
import type { EmbeddingsRequest } from '../../openai/embeddings.js';
import { convertEmbedRequest } from '../gemini/convert-embed-request.js';

export const VERTEX_PREDICT_BATCH = 250;

export interface VertexPredictBody {
  instances: Array<{ content: string }>;
  parameters?: { outputDimensionality: number };
}

export function convertVertexEmbedRequest(request: EmbeddingsRequest, model: string): { batches: VertexPredictBody[]; warnings: string[] } {
  const { batches, warnings } = convertEmbedRequest(request, model);
  const texts = batches.flatMap((b) => b.requests.map((r) => r.content.parts[0]!.text));
  const size = /^(publishers\/google\/models\/|models\/)?gemini-embedding-001$/.test(model) ? 1 : VERTEX_PREDICT_BATCH;
  const parameters = request.dimensions !== undefined ? { parameters: { outputDimensionality: request.dimensions } } : {};
  const out: VertexPredictBody[] = [];
  for (let i = 0; i < texts.length; i += size) {
    out.push(Object.assign({ instances: texts.slice(i, i + size).map((content) => ({ content })) }, parameters));
  }
  return { batches: out, warnings };
}

const WirePredictAnswer = z.looseObject({
  predictions: z
    .array(
      z.looseObject({
        embeddings: z
          .looseObject({
            values: z.array(z.number()),
            statistics: z.looseObject({ token_count: z.number().nullish() }).nullish(),
          })
          .nullish(),
      }),
    )
    .nullish(),
});

/**
 * One `:predict` answer in the shape of a Gemini `batchEmbedContents` answer, so the shared
 * conversion (`convertEmbedResponse`) builds the OpenAI answer and checks the vector count.
 */
export function predictAnswerAsBatch(json: unknown): { embeddings: Array<{ values: number[] }>; usageMetadata: { promptTokenCount: number } } {
  const parsed = WirePredictAnswer.safeParse(json);
  const predictions = parsed.success ? (parsed.data.predictions ?? []) : [];
  let tokens = 0;
  const embeddings: Array<{ values: number[] }> = [];
  for (const p of predictions) {
    if (!p.embeddings) continue;
    embeddings.push({ values: p.embeddings.values });
    tokens += p.embeddings.statistics?.token_count ?? 0;
  }
  return { embeddings, usageMetadata: { promptTokenCount: tokens } };
}
