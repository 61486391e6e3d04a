/**
 * Gemini `batchEmbedContents` answers → the OpenAI embeddings answer and the usage telemetry
 * records. Pure; the batches arrive in input order (one answer per request batch).
 *
 * - `embeddings[i].values` become `data[i].embedding`, indexed across batches;
 * - `encoding_format: base64` gives the little-endian float32 bytes in base64, which is what
 *   OpenAI sends and what the `openai` SDK decodes (it asks for base64 by default);
 * - usage: `usageMetadata.promptTokenCount` summed (missing counts as 0); embeddings have no
 *   output tokens, so total = prompt.
 * - an answer with fewer or more vectors than inputs is a 502: indexes would be misattributed.
 */
import { z } from 'zod';
import { UpstreamError } from '../../errors.js';
import type { Embedding, EmbeddingsResponse } from '../../openai/embeddings.js';
import type { CallOutcome } from '../provider.js';

const WireEmbedAnswer = z.looseObject({
  embeddings: z.array(z.looseObject({ values: z.array(z.number()) })).nullish(),
  usageMetadata: z.looseObject({ promptTokenCount: z.number().nullish() }).nullish(),
});

export interface EmbedAnswerOptions {
  /** The model the client asked for (echoed, as chat does). */
  model: string;
  /** The model the call went to (after overrides), for `gen_ai.response.model`. */
  targetModel: string;
  encodingFormat: 'float' | 'base64';
  /** Inputs sent in each batch, in order. */
  batchSizes: number[];
  warnings: string[];
}

export function convertEmbedResponse(answers: unknown[], options: EmbedAnswerOptions): { response: EmbeddingsResponse; outcome: CallOutcome } {
  const data: Embedding[] = [];
  let promptTokens = 0;
  answers.forEach((json, b) => {
    const parsed = WireEmbedAnswer.safeParse(json);
    const vectors = parsed.success ? (parsed.data.embeddings ?? []) : [];
    if (vectors.length !== options.batchSizes[b]) {
      throw new UpstreamError(`upstream answered ${vectors.length} embeddings for ${options.batchSizes[b]} inputs`, {
        status: 502,
        reason: 'invalid_response',
      });
    }
    promptTokens += (parsed.success ? parsed.data.usageMetadata?.promptTokenCount : undefined) ?? 0;
    for (const v of vectors) {
      data.push({ object: 'embedding', index: data.length, embedding: options.encodingFormat === 'base64' ? toBase64(v.values) : v.values });
    }
  });
  return {
    response: { object: 'list', data, model: options.model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } },
    outcome: {
      responseModel: options.targetModel,
      finishReasons: [],
      usage: { inputTokens: promptTokens, outputTokens: 0, reasoningTokens: 0, cachedInputTokens: 0 },
      warnings: options.warnings,
    },
  };
}

function toBase64(values: number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return Buffer.from(view.buffer).toString('base64');
}
