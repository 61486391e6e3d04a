/**
 * The public embeddings contract (`POST /v1/embeddings`): the request, validated strictly at our
 * door like chat (unknown fields refused, as OpenAI does), and the answer sidegate writes.
 * Reference: https://platform.openai.com/docs/api-reference/embeddings/create. Built once at import.
 */
import { z } from 'zod';

/** OpenAI's own cap on the number of inputs in one request. */
export const MAX_EMBEDDING_INPUTS = 2048;

const TokenArray = z.array(z.number().int().nonnegative()).min(1);

export const EmbeddingsRequestSchema = z.strictObject({
  model: z.string().min(1),
  // Text, texts, token ids or arrays of token ids. Token ids pass validation here so the provider
  // can refuse them with a message saying why (Gemini embeds text only).
  input: z.union([
    z.string(),
    z.array(z.string()).min(1).max(MAX_EMBEDDING_INPUTS),
    TokenArray,
    z.array(TokenArray).min(1).max(MAX_EMBEDDING_INPUTS),
  ]),
  dimensions: z.number().int().positive().optional(),
  encoding_format: z.enum(['float', 'base64']).optional(),
  user: z.string().optional(),
});
export type EmbeddingsRequest = z.infer<typeof EmbeddingsRequestSchema>;

export interface Embedding {
  object: 'embedding';
  index: number;
  /** Floats, or the little-endian float32 bytes in base64 when `encoding_format` is `base64`. */
  embedding: number[] | string;
}

export interface EmbeddingsResponse {
  object: 'list';
  data: Embedding[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}
