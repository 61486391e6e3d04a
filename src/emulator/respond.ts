// Turns an Answer into wire JSON (gemini-wire.md §3) and stream chunks (§4), and writes JSON,
// SSE and JSON-array responses. Conversions are pure; the writers only touch `res`.

import type { ServerResponse } from 'node:http';
import { outputTokens, type Answer, type AnswerCandidate, type OutPart, type PromptCount } from './default-answer.js';
import { logprobsFor } from './features/logprobs.js';
import { splitPcm } from './features/speech.js';

/** Usage beyond prompt, output and thoughts (issue 23 fields); all optional. */
export interface UsageExtras {
  /** Output tokens that are audio (TTS), part of `candidatesTokenCount`. */
  audioTokens?: number;
  toolUsePromptTokens?: number;
  cachedTokens?: number;
  serviceTier?: string;
}

/**
 * `usageMetadata` with the §3.3 total and zero-valued fields omitted. Cached tokens are part of
 * `promptTokenCount` (§3.3); tool-use tokens are not, but count in the total.
 */
export function usageJson(prompt: PromptCount, text: number, image: number, thoughts: number, extras: UsageExtras = {}): Record<string, unknown> {
  const u: Record<string, unknown> = {};
  const cached = extras.cachedTokens ?? 0;
  const toolUse = extras.toolUsePromptTokens ?? 0;
  const promptTotal = prompt.total + cached;
  if (promptTotal > 0) u.promptTokenCount = promptTotal;
  if (cached > 0) {
    u.cachedContentTokenCount = cached;
    u.cacheTokensDetails = [{ modality: 'TEXT', tokenCount: cached }];
  }
  const audio = extras.audioTokens ?? 0;
  const candidates = text + image + audio;
  if (candidates > 0) u.candidatesTokenCount = candidates;
  if (toolUse > 0) {
    u.toolUsePromptTokenCount = toolUse;
    u.toolUsePromptTokensDetails = [{ modality: 'TEXT', tokenCount: toolUse }];
  }
  u.totalTokenCount = promptTotal + candidates + thoughts + toolUse;
  if (prompt.details.length > 0) {
    u.promptTokensDetails = cached > 0 ? prompt.details.map((d) => (d.modality === 'TEXT' ? { ...d, tokenCount: d.tokenCount + cached } : d)) : prompt.details;
    if (cached > 0 && !prompt.details.some((d) => d.modality === 'TEXT')) (u.promptTokensDetails as unknown[]).unshift({ modality: 'TEXT', tokenCount: cached });
  }
  if (thoughts > 0) u.thoughtsTokenCount = thoughts;
  if (extras.serviceTier) u.serviceTier = extras.serviceTier;
  if (image > 0 || audio > 0) {
    const details: Array<{ modality: string; tokenCount: number }> = [];
    if (text > 0) details.push({ modality: 'TEXT', tokenCount: text });
    if (image > 0) details.push({ modality: 'IMAGE', tokenCount: image });
    if (audio > 0) details.push({ modality: 'AUDIO', tokenCount: audio });
    u.candidatesTokensDetails = details;
  }
  return u;
}

function candidateJson(c: AnswerCandidate, index: number, parts: OutPart[], last: boolean): Record<string, unknown> {
  const content: Record<string, unknown> = parts.length > 0 ? { parts, role: 'model' } : { role: 'model' };
  const out: Record<string, unknown> = { content };
  if (last) {
    out.finishReason = c.finishReason;
    if (c.finishMessage) out.finishMessage = c.finishMessage;
    if (c.groundingMetadata) out.groundingMetadata = c.groundingMetadata;
    if (c.urlContextMetadata) out.urlContextMetadata = c.urlContextMetadata;
  }
  if (c.safetyRatings) out.safetyRatings = c.safetyRatings;
  out.index = index;
  return out;
}

function extrasOf(answer: Answer, audioTokens: number): UsageExtras {
  return {
    ...(audioTokens > 0 ? { audioTokens } : {}),
    ...(answer.toolUsePromptTokens ? { toolUsePromptTokens: answer.toolUsePromptTokens } : {}),
    ...(answer.cachedTokens ? { cachedTokens: answer.cachedTokens } : {}),
    ...(answer.serviceTier ? { serviceTier: answer.serviceTier } : {}),
  };
}

/** Answer text of some parts (thoughts excluded), what logprobs describe. */
function answerText(parts: OutPart[]): string {
  return parts.map((p) => (p.thought !== true && typeof p.text === 'string' ? p.text : '')).join('');
}

/** Adds `logprobsResult` / `avgLogprobs` for `parts` to a candidate when asked for; returns the steps used. */
function withLogprobs(out: Record<string, unknown>, answer: Answer, parts: OutPart[], firstStep: number): number {
  if (!answer.logprobs) return 0;
  const text = answerText(parts);
  if (text === '') return 0;
  const piece = logprobsFor(text, answer.logprobs.top, firstStep);
  out.logprobsResult = piece.logprobsResult;
  out.avgLogprobs = piece.avgLogprobs;
  return (piece.logprobsResult.chosenCandidates as unknown[]).length;
}

/** A blocked prompt (§3.2): promptFeedback, prompt usage, no candidates; one chunk when streamed. */
function blockedResponse(answer: Answer, model: string, responseId: string): Record<string, unknown> {
  return { promptFeedback: answer.promptFeedback, usageMetadata: usageJson(answer.prompt, 0, 0, 0), modelVersion: model, responseId };
}

/** The non-streaming `GenerateContentResponse`. */
export function answerToResponse(answer: Answer, model: string, responseId: string): Record<string, unknown> {
  if (answer.promptFeedback) return blockedResponse(answer, model, responseId);
  const all: OutPart[] = [];
  const candidates = answer.candidates.map((c, i) => {
    let parts = c.parts;
    if (i === 0 && answer.trailingSignature && parts.length > 0) {
      parts = [...parts];
      parts[parts.length - 1] = { ...parts[parts.length - 1], thoughtSignature: answer.trailingSignature };
    }
    all.push(...parts);
    const json = candidateJson(c, i, parts, true);
    withLogprobs(json, answer, parts, 0);
    return json;
  });
  const out = outputTokens(all);
  return {
    candidates,
    usageMetadata: usageJson(answer.prompt, out.text, out.image, answer.thoughtsTokens, extrasOf(answer, out.audio)),
    modelVersion: model,
    responseId,
  };
}

/** Splits text into up to three pieces at spaces; the pieces concatenate back to `text`. */
export function splitText(text: string): string[] {
  if (text.length < 12) return [text];
  const pieces: string[] = [];
  let from = 0;
  for (const frac of [1 / 3, 2 / 3]) {
    const target = Math.floor(text.length * frac);
    const cut = text.indexOf(' ', Math.max(target, from + 1));
    if (cut < 0 || cut >= text.length - 1) break;
    pieces.push(text.slice(from, cut + 1));
    from = cut + 1;
  }
  pieces.push(text.slice(from));
  return pieces;
}

/** Stream pieces of one candidate: thought/text parts split, other parts whole (§4). */
function piecesOf(c: AnswerCandidate, trailing: string | undefined): OutPart[][] {
  const pieces: OutPart[][] = [];
  for (const p of c.parts) {
    const blob = p.inlineData as { mimeType?: string; data?: string } | undefined;
    if (typeof p.text === 'string' && Object.keys(p).length === (p.thought ? 2 : 1)) {
      for (const t of splitText(p.text)) pieces.push([p.thought ? { text: t, thought: true } : { text: t }]);
    } else if (blob?.mimeType?.startsWith('audio/')) {
      // Streaming TTS: every event carries one raw L16 chunk (§3).
      for (const data of splitPcm(blob.data ?? '')) pieces.push([{ inlineData: { mimeType: blob.mimeType, data } }]);
    } else {
      pieces.push([p]);
    }
  }
  // Gemini 3 text answers: the signature comes after the text, on an empty text part (§4, §6.1).
  if (trailing) pieces.push([{ text: '', thoughtSignature: trailing }]);
  if (pieces.length === 0) pieces.push([]);
  return pieces;
}

/** The `streamGenerateContent` chunks: deltas, cumulative usage, finishReason on the last (§4). */
export function answerToChunks(answer: Answer, model: string, responseId: string): Array<Record<string, unknown>> {
  if (answer.promptFeedback) return [blockedResponse(answer, model, responseId)];
  const perCandidate = answer.candidates.map((c, i) => piecesOf(c, i === 0 ? answer.trailingSignature : undefined));
  const count = Math.max(...perCandidate.map((p) => p.length));
  const emitted: OutPart[] = [];
  const chunks: Array<Record<string, unknown>> = [];
  const steps = answer.candidates.map(() => 0);
  for (let k = 0; k < count; k++) {
    const candidates: Array<Record<string, unknown>> = [];
    perCandidate.forEach((pieces, i) => {
      const piece = pieces[k];
      if (!piece) return;
      emitted.push(...piece);
      const json = candidateJson(answer.candidates[i]!, i, piece, k === pieces.length - 1);
      steps[i]! += withLogprobs(json, answer, piece, steps[i]!);
      candidates.push(json);
    });
    const out = outputTokens(emitted);
    chunks.push({
      candidates,
      usageMetadata: usageJson(answer.prompt, out.text, out.image, answer.thoughtsTokens, extrasOf(answer, out.audio)),
      modelVersion: model,
      responseId,
    });
  }
  return chunks;
}

const JSON_TYPE = 'application/json; charset=UTF-8';

/** Writes a JSON body, pretty-printed as Google's front end does (§11.1). */
export function writeJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const text = body === undefined ? '' : JSON.stringify(body, null, 2);
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** How a stream ends: cleanly, by a destroyed socket, or after an in-stream error event. */
export type StreamEnd = 'clean' | 'drop' | { error: unknown };

export interface StreamChunk {
  data: unknown;
  delayMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function encodeData(data: unknown): string {
  // A string is written verbatim so tests can send malformed events.
  return typeof data === 'string' ? data : JSON.stringify(data);
}

/**
 * Writes a stream: SSE (`data: {json}\r\n\r\n`, no `[DONE]`) when `sse`, else a JSON array
 * (`[{…}\r\n,{…}\r\n]`). Stops quietly if the client goes away.
 */
export async function writeStream(
  res: ServerResponse,
  sse: boolean,
  chunks: StreamChunk[],
  end: StreamEnd = 'clean',
  headers?: Record<string, string>,
): Promise<void> {
  res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : JSON_TYPE, 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
  let first = true;
  const emit = (data: unknown) => {
    const json = encodeData(data);
    if (sse) res.write(`data: ${json}\r\n\r\n`);
    else {
      res.write(first ? `[${json}` : `\r\n,${json}`);
    }
    first = false;
  };
  for (const c of chunks) {
    if (c.delayMs) await sleep(c.delayMs);
    if (res.destroyed) return;
    emit(c.data);
  }
  if (end === 'drop') {
    // Let written bytes reach the client, then cut the connection without the chunked terminator.
    await new Promise<void>((resolve) => res.write('', () => resolve()));
    res.socket?.destroy();
    return;
  }
  if (typeof end === 'object') {
    const e = end.error;
    const isWrapped = typeof e === 'object' && e !== null && 'error' in e && Object.keys(e).length === 1;
    emit(isWrapped ? e : { error: e });
  }
  if (!sse) res.write(first ? '[]' : '\r\n]');
  res.end();
}

/** Writes raw pieces (a fault script), waiting for the socket to drain between them. */
export async function writeRaw(
  res: ServerResponse,
  status: number,
  pieces: Array<string | { repeat: string; times: number }>,
  headers?: Record<string, string>,
): Promise<void> {
  res.writeHead(status, { ...headers });
  const write = async (text: string) => {
    if (res.destroyed) return;
    if (!res.write(text)) await new Promise<void>((resolve) => {
      res.once('drain', resolve);
      res.once('close', resolve);
    });
  };
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      await write(piece);
      continue;
    }
    // Repeats are written in blocks of about 64 KiB, never as one giant string.
    const perBlock = Math.max(1, Math.floor(65536 / Math.max(1, piece.repeat.length)));
    const block = piece.repeat.repeat(Math.min(perBlock, piece.times));
    let left = piece.times;
    while (left > 0 && !res.destroyed) {
      const n = Math.min(perBlock, left);
      await write(n === perBlock || n === piece.times ? block.slice(0, n * piece.repeat.length) : piece.repeat.repeat(n));
      left -= n;
    }
  }
  if (!res.destroyed) res.end();
}
