// `embedContent` and `batchEmbedContents` (gemini-wire.md §1; Google's embeddings reference):
// request validation and deterministic vectors. Pure; one call per request.
//
// Facts followed: a batch holds at most 100 requests (400 "at most 100 requests can be in one
// batch", as the live API answers); each request names its model, which must be the one in the
// URL; `outputDimensionality` truncates the 3072-value vector (only full-size vectors come back
// normalised); the response carries `usageMetadata.promptTokenCount`.
//
// Vectors: a bag of lower-cased words, each word hashed to a few signed positions, then
// L2-normalised. Texts sharing words are close, so a retriever over emulated embeddings finds the
// document that shares the query's words; equal texts give equal vectors.

import { createHash } from 'node:crypto';
import { badRequestError, googleError, type GoogleErrorBody } from './errors.js';
import { tokensOf } from './default-answer.js';
import { EMBEDDING_DIMENSIONS } from './models.js';
import { parseMessage } from './proto-schema.js';
import type { WireContent } from './validate-request.js';

export const MAX_BATCH_REQUESTS = 100;
const MIN_DIMENSIONS = 1;

export interface EmbedRequest {
  model?: string;
  content?: WireContent;
  taskType?: string;
  title?: string;
  outputDimensionality?: number;
}

type Checked<T> = { ok: true; value: T } | { ok: false; error: GoogleErrorBody };
const fail = (error: GoogleErrorBody): { ok: false; error: GoogleErrorBody } => ({ ok: false, error });
const starred = (message: string, field: string, text: string) =>
  fail(badRequestError([{ field, description: `* ${message}.${field}: ${text}\n` }]));

function checkOne(req: EmbedRequest, model: string, message: string, prefix: string): { ok: false; error: GoogleErrorBody } | null {
  if (req.model !== undefined && req.model !== `models/${model}` && req.model !== model) {
    return starred(message, `${prefix}model`, `model "${req.model}" does not match the model of the request URL, models/${model}`);
  }
  const parts = req.content?.parts ?? [];
  if (!parts.some((p) => typeof p.text === 'string' && p.text !== '')) {
    return starred(message, `${prefix}content`, 'contents is not specified');
  }
  const dims = req.outputDimensionality;
  if (dims !== undefined && (dims < MIN_DIMENSIONS || dims > EMBEDDING_DIMENSIONS)) {
    return starred(message, `${prefix}output_dimensionality`, `must be between ${MIN_DIMENSIONS} and ${EMBEDDING_DIMENSIONS}, got ${dims}`);
  }
  return null;
}

/** Parses a `batchEmbedContents` body for `model`. */
export function validateBatchEmbedRequest(body: unknown, model: string): Checked<EmbedRequest[]> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail(googleError(400, 'Invalid JSON payload received. Expected an object.'));
  }
  const violations: Parameters<typeof parseMessage>[3] = [];
  const req = parseMessage('BatchEmbedContentsRequest', body as Record<string, unknown>, '', violations) as {
    requests?: EmbedRequest[];
  };
  if (violations.length > 0) return fail(badRequestError(violations));
  const requests = req.requests ?? [];
  if (requests.length === 0) return starred('BatchEmbedContentsRequest', 'requests', 'requests is not specified');
  if (requests.length > MAX_BATCH_REQUESTS) {
    return starred('BatchEmbedContentsRequest', 'requests', `at most ${MAX_BATCH_REQUESTS} requests can be in one batch`);
  }
  for (let i = 0; i < requests.length; i++) {
    const problem = checkOne(requests[i]!, model, 'BatchEmbedContentsRequest', `requests[${i}].`);
    if (problem) return problem;
  }
  return { ok: true, value: requests };
}

/** Parses an `embedContent` body for `model`. */
export function validateEmbedRequest(body: unknown, model: string): Checked<EmbedRequest> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail(googleError(400, 'Invalid JSON payload received. Expected an object.'));
  }
  const violations: Parameters<typeof parseMessage>[3] = [];
  const req = parseMessage('EmbedContentRequest', body as Record<string, unknown>, '', violations) as EmbedRequest;
  if (violations.length > 0) return fail(badRequestError(violations));
  return checkOne(req, model, 'EmbedContentRequest', '') ?? { ok: true, value: req };
}

function textOf(req: EmbedRequest): string {
  return (req.content?.parts ?? []).map((p) => p.text ?? '').join(' ');
}

/** The deterministic vector of a text: full size and normalised, then truncated to `dims`. */
export function embedText(text: string, dims: number = EMBEDDING_DIMENSIONS): number[] {
  const v = new Float64Array(EMBEDDING_DIMENSIONS);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    const h = createHash('sha256').update(word).digest();
    for (let k = 0; k < 4; k++) {
      const pos = h.readUInt32BE(k * 4) % EMBEDDING_DIMENSIONS;
      v[pos]! += h[16 + k]! & 1 ? 1 : -1;
    }
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  const out = new Array<number>(dims);
  // An empty or symbol-only text still gets a unit vector (first axis).
  for (let i = 0; i < dims; i++) out[i] = norm === 0 ? (i === 0 ? 1 : 0) : Math.fround(v[i]! / norm);
  return out;
}

function usage(requests: EmbedRequest[]): Record<string, unknown> {
  const tokens = requests.reduce((n, r) => n + tokensOf(textOf(r).length), 0);
  return { promptTokenCount: tokens, promptTokenDetails: [{ modality: 'TEXT', tokenCount: tokens }] };
}

/** The `BatchEmbedContentsResponse`: one embedding per request, in order, and usage. */
export function batchEmbedResponse(requests: EmbedRequest[]): Record<string, unknown> {
  return {
    embeddings: requests.map((r) => ({ values: embedText(textOf(r), r.outputDimensionality) })),
    usageMetadata: usage(requests),
  };
}

/** The `EmbedContentResponse`. */
export function embedResponse(request: EmbedRequest): Record<string, unknown> {
  return { embedding: { values: embedText(textOf(request), request.outputDimensionality) }, usageMetadata: usage([request]) };
}
