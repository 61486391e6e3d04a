/**
 * Shared bits of the capability suites: the non-strict header, stream collection, and a Gemini
 * chunk builder. Each suite starts its own harness (official `openai` SDK → gateway → emulator).
 */
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { expect } from 'vitest';

/** Request option that turns strict compliance off (DESIGN Decision 9). */
export const NON_STRICT = { headers: { 'x-gateway-strict-compliance': 'false' } } as const;

/** Tool-call ids the gateway mints (Decision 9). */
export const CALL_ID = /^call-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Drains an SDK stream (typed loosely: requests that carry non-OpenAI fields are cast to `never`). */
export async function collect(stream: unknown): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const c of stream as AsyncIterable<ChatCompletionChunk>) chunks.push(c);
  return chunks;
}

/** A function tool call as the gateway answers it (`thought_signature` only when strict compliance is off). */
export interface FunctionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string; thought_signature?: string };
}

/** The tool calls of an answer's message, as function calls. */
export function toolCalls(message: { tool_calls?: unknown }): FunctionToolCall[] {
  return (message.tool_calls ?? []) as FunctionToolCall[];
}

/** Deltas of choice 0, in order. */
export function deltas(chunks: ChatCompletionChunk[]): Array<ChatCompletionChunk.Choice.Delta & Record<string, unknown>> {
  return chunks.filter((c) => c.choices.length > 0).map((c) => c.choices[0]!.delta as ChatCompletionChunk.Choice.Delta & Record<string, unknown>);
}

/** Concatenated `delta.content` of choice 0. */
export function streamedText(chunks: ChatCompletionChunk[]): string {
  return deltas(chunks)
    .map((d) => d.content ?? '')
    .join('');
}

/** The last finish_reason of choice 0. */
export function finishReason(chunks: ChatCompletionChunk[]): string | null | undefined {
  return chunks.filter((c) => c.choices.length > 0).at(-1)?.choices[0]?.finish_reason;
}

/** One Gemini stream chunk (candidate 0) for `emulator.enqueue({ chunks })`. */
export function geminiChunk(parts: unknown[] | undefined, extra: Record<string, unknown> = {}, model = 'gemini-2.5-flash') {
  return {
    data: {
      candidates: [{ content: parts ? { role: 'model', parts } : { role: 'model' }, index: 0, ...extra }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 },
      modelVersion: model,
      responseId: 'resp-stream',
    },
  };
}

/** One Gemini JSON answer (candidate 0) for `emulator.enqueue`. */
export function geminiReply(parts: unknown[], extra: Record<string, unknown> = {}, model = 'gemini-2.5-flash') {
  return {
    status: 200,
    body: {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0, ...extra }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 },
      modelVersion: model,
      responseId: 'resp-1',
    },
  };
}

/** Awaits a rejected SDK call and returns its APIError (fails the test if it resolved). */
export async function apiError(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(OpenAI.APIError);
    return err as InstanceType<typeof OpenAI.APIError>;
  }
  throw new Error('expected the call to fail');
}
