/**
 * The OpenAI-compatible `Provider` (`provider: openai`): any endpoint speaking chat completions
 * (OpenAI, vLLM, Ollama, LiteLLM, …) so a fallback can leave Gemini. The request passes through
 * untranslated (`prepare-openai-body.ts` only applies overrides and drops sidegate's own fields);
 * the answer passes back as is. The only file here that does I/O: over a keep-alive dispatcher
 * (DESIGN Decision 14), injectable: a non-streamed answer read whole by `whole-answer.ts`'s
 * dispatch handler, a stream piece by piece by `streamed-answer.ts`'s.
 *
 * Same failure semantics as the Gemini provider: the per-attempt timeout runs until response
 * headers arrive (Decision 6) → 504 `timeout`; refused/reset/dropped connections → 502
 * `connection_error`; upstream error statuses and messages pass through with `Retry-After`;
 * a client abort → `ClientAbortError` and the upstream call is aborted. The key goes only in
 * `Authorization`, only to `target.baseUrl`.
 */
import { createUpstreamAgent, type Dispatcher } from '../../http-client.js';
import { ClientAbortError, GatewayError, UpstreamError } from '../../errors.js';
import type { ChatCompletion, ChatCompletionChunk } from '../../openai/chat-response.js';
import type { CallOutcome, ChatResult, NormalizedUsage, Provider, ProviderCall, StreamResult, Target } from '../provider.js';
import { AttemptControl } from '../attempt-control.js';
import { answerLimitsFrom } from '../post-json.js';
import { postJsonForStream, type StreamedBody } from '../streamed-answer.js';
import { postJsonForWholeAnswer } from '../whole-answer.js';
import type { InflightBudget } from '../../overload/inflight-budget.js';
import { parseOpenAIError } from './openai-errors.js';
import { scrubProviderErrors } from '../scrub-provider-errors.js';
import { scrubSecrets } from '../../scrub-secrets.js';
import { SseParser } from '../sse-parser.js';
import { prepareOpenAIBody } from './prepare-openai-body.js';

export interface OpenAIProviderOptions {
  /** Keep-alive dispatcher; default an undici `Agent` owned (and closed) by this provider. */
  dispatcher?: Dispatcher;
  /** Largest single upstream stream event (`SIDEGATE_MAX_UPSTREAM_EVENT_BYTES`); default 32 MiB. */
  maxEventBytes?: number;
  /** Connections per upstream origin of the default dispatcher (`SIDEGATE_UPSTREAM_MAX_CONNECTIONS`); default 4096. */
  maxConnections?: number;
  /** Longest silence in the middle of an upstream answer (`SIDEGATE_UPSTREAM_TIMEOUT_MS`); default 600 s. */
  bodyIdleTimeoutMs?: number;
  /** Largest non-streamed answer (`SIDEGATE_MAX_UPSTREAM_ANSWER_BYTES`); default 32 MiB. */
  maxAnswerBytes?: number;
  /** In-flight budget answers are counted in. */
  budget?: InflightBudget;
}

export interface OpenAIProvider extends Provider {
  /** Closes the dispatcher this provider created (not one passed in). */
  close(): Promise<void>;
}

/** `{baseUrl}/v1/chat/completions`; a base URL that already ends in `/v1` is not doubled. */
export function chatCompletionsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return `${base.endsWith('/v1') ? base : `${base}/v1`}/chat/completions`;
}

export function createOpenAIProvider(options: OpenAIProviderOptions = {}): OpenAIProvider {
  const ownDispatcher = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? createUpstreamAgent(options);
  const answerLimits = answerLimitsFrom(options);

  function callHeaders(call: ProviderCall, stream: boolean): Record<string, string> {
    return Object.assign({}, call.traceHeaders, { accept: stream ? 'text/event-stream' : 'application/json', authorization: `Bearer ${call.target.apiKey}` });
  }

  function errorOf(status: number, text: string, header: (name: string) => string | undefined, target: Target): Error {
    return parseOpenAIError(status, text, {
      retryAfterHeader: header('retry-after'),
      retryAfterMsHeader: header('retry-after-ms'),
      apiKey: target.apiKey,
    });
  }

  /** A stream's call; resolves once response headers arrived with a 2xx. */
  async function openStream(call: ProviderCall) {
    const { target } = call;
    const prepared = prepareOpenAIBody(call.request, target, true);
    const control = new AttemptControl(call.signal, target.timeoutMs, call.onRequestWritten);
    const answer = await postJsonForStream(chatCompletionsUrl(target.baseUrl), prepared.body, callHeaders(call, true), control, dispatcher, answerLimits);
    if (!answer.ok) throw errorOf(answer.statusCode, answer.text, answer.header, target);
    return { body: answer.body, control, prepared };
  }

  async function chat(call: ProviderCall): Promise<ChatResult> {
    const { target } = call;
    const prepared = prepareOpenAIBody(call.request, target, false);
    const control = new AttemptControl(call.signal, target.timeoutMs, call.onRequestWritten);
    try {
      const answer = await postJsonForWholeAnswer(chatCompletionsUrl(target.baseUrl), prepared.body, callHeaders(call, false), control, dispatcher, answerLimits);
      try {
        if (answer.statusCode >= 300) throw errorOf(answer.statusCode, answer.body.toString('utf8'), answer.header, target);
        let json: unknown;
        try {
          json = JSON.parse(answer.body.toString('utf8'));
        } catch {
          throw invalidResponse('upstream sent a body that is not JSON');
        }
        if (typeof json !== 'object' || json === null || !Array.isArray((json as { choices?: unknown }).choices)) {
          throw invalidResponse('upstream answer has no choices');
        }
        const completion = json as ChatCompletion;
        const outcome: CallOutcome = {
          finishReasons: completion.choices.flatMap((c) => (typeof c?.finish_reason === 'string' ? [c.finish_reason] : [])),
          warnings: prepared.warnings,
          ...(typeof completion.id === 'string' ? { responseId: completion.id } : {}),
          ...(typeof completion.model === 'string' ? { responseModel: completion.model } : {}),
          ...usageOf(completion.usage),
        };
        return { status: 200, completion, outcome };
      } finally {
        answer.release();
      }
    } finally {
      control.dispose();
    }
  }

  async function chatStream(call: ProviderCall): Promise<StreamResult> {
    const { body, control, prepared } = await openStream(call);
    const outcome: CallOutcome = { finishReasons: [], warnings: prepared.warnings };
    const finishReasons = new Map<number, string>();

    const handle = (payload: string): ChatCompletionChunk | 'done' | undefined => {
      if (payload.trim() === '[DONE]') return 'done';
      let json: unknown;
      try {
        json = JSON.parse(payload);
      } catch {
        throw invalidResponse('upstream sent a stream event that is not JSON');
      }
      if (typeof json !== 'object' || json === null) throw invalidResponse('upstream sent a stream event that is not an object');
      const error = (json as { error?: { message?: unknown; code?: unknown } }).error;
      if (error !== undefined && error !== null) {
        const message = typeof error.message === 'string' ? error.message : 'upstream failed mid-stream';
        throw new UpstreamError(scrubSecrets(message, [call.target.apiKey]), {
          status: 502,
          reason: 'stream_error',
          code: typeof error.code === 'string' ? error.code : null,
        });
      }
      const chunk = json as ChatCompletionChunk;
      if (typeof chunk.id === 'string') outcome.responseId = chunk.id;
      if (typeof chunk.model === 'string') outcome.responseModel = chunk.model;
      for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
        if (typeof choice?.finish_reason === 'string') finishReasons.set(choice.index ?? 0, choice.finish_reason);
      }
      if (chunk.usage) Object.assign(outcome, usageOf(chunk.usage));
      if (prepared.clientWantsStreamUsage) return chunk;
      // We asked for usage on the client's behalf: drop the usage-only chunk and the field.
      if (Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage) return undefined;
      if ('usage' in chunk) {
        const { usage: _usage, ...rest } = chunk;
        return rest;
      }
      return chunk;
    };

    return { status: 200, chunks: openAIChunks(body, control, handle, finishReasons, outcome, options.maxEventBytes), outcome: () => outcome };
  }

  return scrubProviderErrors({
    name: 'openai',
    telemetryName: 'openai',
    operationName: 'chat',
    chat,
    chatStream,
    async close() {
      if (ownDispatcher) await dispatcher.close();
    },
  });
}

/**
 * The chunks of one OpenAI-compatible stream: each SSE event through `handle` (undefined: dropped,
 * `'done'`: the `[DONE]` marker), which fills `finishReasons`; they go into `outcome` in index
 * order when the stream ends, however it ends. At module level, as the Gemini provider's `geminiChunks` and for
 * the same reason: a generator function created per call keeps each stream's whole object graph
 * alive through every scavenge (its own initial map, in the old generation, points back to it).
 */
async function* openAIChunks(
  body: StreamedBody,
  control: AttemptControl,
  handle: (payload: string) => ChatCompletionChunk | 'done' | undefined,
  finishReasons: ReadonlyMap<number, string>,
  outcome: CallOutcome,
  maxEventBytes: number | undefined,
): AsyncGenerator<ChatCompletionChunk> {
  const parser = new SseParser({ maxEventBytes });
  let completed = false;
  try {
    let done = false;
    for await (const payload of sseEvents(body, control, parser)) {
      const result = handle(payload);
      if (result === 'done') {
        done = true;
        break;
      }
      if (result !== undefined) yield result;
    }
    if (!done && finishReasons.size === 0) {
      throw new UpstreamError('the upstream stream ended before it was complete', { status: 502, reason: 'connection_error' });
    }
    completed = true;
  } finally {
    outcome.finishReasons = [...finishReasons.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
    if (!completed) {
      // The client went away (return()) or the stream failed: stop reading upstream.
      body.destroy();
    }
    control.dispose();
  }
}

/** The data of each SSE event of an answer body, in order; undici's failures as our errors. */
async function* sseEvents(body: StreamedBody, control: AttemptControl, parser: SseParser): AsyncGenerator<string> {
  try {
    for (;;) {
      let piece = body.read();
      if (piece instanceof Promise) piece = await piece;
      if (piece === undefined) break;
      // `yield` per event, not `yield*` of the parser's array (an async-from-sync iterator per piece).
      for (const data of parser.push(piece)) yield data;
    }
  } catch (err) {
    throw control.toError(err, 'body');
  }
  for (const data of parser.end()) yield data;
}

function invalidResponse(message: string): UpstreamError {
  return new UpstreamError(message, { status: 502, reason: 'invalid_response' });
}

function usageOf(usage: unknown): { usage?: NormalizedUsage } {
  if (typeof usage !== 'object' || usage === null) return {};
  const u = usage as {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown } | null;
    completion_tokens_details?: { reasoning_tokens?: unknown } | null;
  };
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return {
    usage: {
      inputTokens: n(u.prompt_tokens),
      outputTokens: n(u.completion_tokens),
      reasoningTokens: n(u.completion_tokens_details?.reasoning_tokens),
      cachedInputTokens: n(u.prompt_tokens_details?.cached_tokens),
    },
  };
}

