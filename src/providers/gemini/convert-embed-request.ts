/**
 * OpenAI embeddings request → Gemini `batchEmbedContents` bodies (gemini-wire §1; Google's
 * embeddings reference). Pure; called once per attempt with the original parsed request.
 *
 * - each input becomes one `EmbedContentRequest` naming `models/{model}` (the API requires the
 *   model of every request to be the URL's);
 * - `dimensions` → `outputDimensionality`;
 * - Gemini takes at most 100 requests per call, so inputs are split into batches of 100 in order
 *   (the provider sends them one after another within the same attempt);
 * - token-id inputs cannot be embedded by Gemini (it takes text): 400 with `param: input`;
 * - `user` only feeds telemetry: warning `ignored_param:user`. `encoding_format` is ours to apply
 *   to the answer, not a Gemini parameter.
 */
import { InvalidRequestError } from '../../errors.js';
import type { EmbeddingsRequest } from '../../openai/embeddings.js';

/** The live API's cap ("at most 100 requests can be in one batch"). */
export const GEMINI_EMBED_BATCH = 100;

export interface GeminiEmbedRequest {
  model: string;
  content: { parts: Array<{ text: string }> };
  outputDimensionality?: number;
}

export interface ConvertedEmbedRequest {
  /** Bodies of the `batchEmbedContents` calls, in input order. */
  batches: Array<{ requests: GeminiEmbedRequest[] }>;
  warnings: string[];
}

export function convertEmbedRequest(request: EmbeddingsRequest, model: string): ConvertedEmbedRequest {
  const inputs = textInputs(request.input);
  const warnings: string[] = [];
  if (request.user !== undefined) warnings.push('ignored_param:user');
  const name = model.startsWith('models/') ? model : `models/${model}`;
  const batches: ConvertedEmbedRequest['batches'] = [];
  for (let i = 0; i < inputs.length; i += GEMINI_EMBED_BATCH) {
    batches.push({
      requests: inputs.slice(i, i + GEMINI_EMBED_BATCH).map((text) => ({
        model: name,
        content: { parts: [{ text }] },
        ...(request.dimensions !== undefined ? { outputDimensionality: request.dimensions } : {}),
      })),
    });
  }
  return { batches, warnings };
}

function textInputs(input: EmbeddingsRequest['input']): string[] {
  if (typeof input === 'string') return [nonEmpty(input, 'input')];
  const texts: string[] = [];
  for (let i = 0; i < input.length; i++) {
    const item = input[i];
    if (typeof item !== 'string') {
      throw new InvalidRequestError('input: token ids cannot be embedded by Gemini models; send the text instead', {
        param: 'input',
        code: 'unsupported_value',
      });
    }
    texts.push(nonEmpty(item, `input[${i}]`));
  }
  return texts;
}

/** OpenAI refuses empty strings too ("'$.input' is invalid"); Gemini would 400 the whole batch. */
function nonEmpty(text: string, param: string): string {
  if (text === '') throw new InvalidRequestError(`${param}: an input must not be an empty string`, { param, code: 'invalid_value' });
  return text;
}
