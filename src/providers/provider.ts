/**
 * The contract every upstream implements. Routing calls a provider once per attempt with the
 * original parsed request (providers never mutate it), so an attempt is safe to rerun.
 * Providers know nothing of OpenTelemetry: they report what telemetry needs through the result
 * objects (`CallOutcome`); routing marks the first streamed chunk on the attempt span itself.
 */
import type { ClientSignal } from '../client-signal.js';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import type { ChatCompletion, ChatCompletionChunk } from '../openai/chat-response.js';
import type { EmbeddingsRequest, EmbeddingsResponse } from '../openai/embeddings.js';

export type ProviderName = 'google' | 'openai' | 'vertex-ai';

/** One concrete upstream a request can go to: resolved from headers, virtual keys and configs. */
export interface Target {
  provider: ProviderName;
  /** Provider credential. Leaves the gateway only toward `baseUrl`. */
  apiKey: string;
  /** Upstream base URL, e.g. `https://generativelanguage.googleapis.com`. */
  baseUrl: string;
  /** Model override from a routing config (`override_params.model`); else the request's model. */
  model?: string;
  /** Non-OpenAI response fields are added only when false (DESIGN Decision 9). Default true. */
  strictCompliance: boolean;
  /** Per-attempt timeout until response headers arrive (DESIGN Decision 6). */
  timeoutMs: number;
  /** Vertex AI addressing and credential (provider `vertex-ai` only). */
  vertex?: VertexTarget;
}

/**
 * Where a Vertex AI target lives and which Google identity calls it. The credential chain
 * (`providers/vertex/vertex-credential.ts`): `apiKey` (a raw access token, or an express-mode
 * API key), else `serviceAccountJson`, else the pod's Application Default Credentials.
 */
export interface VertexTarget {
  /** Project ID (not the number); undefined: the service account's `project_id`, else ADC's project. */
  projectId?: string;
  /** Location: a region (`us-central1`), `global`, or the multi-regions `us` / `eu`. */
  region: string;
  /** A service-account key (JSON text). Leaves the gateway only as a JWT signed with it. */
  serviceAccountJson?: string;
}

/**
 * Token usage in provider-neutral terms: the one usage model spans, metrics and the one cost
 * function (`telemetry/pricing.ts` `computeCostUsd`) read. OpenAI semantics: totals include
 * their breakdowns, and a breakdown is never added to its total again.
 */
export interface NormalizedUsage {
  /** Every billed prompt token: includes cached and tool-use prompt tokens. */
  inputTokens: number;
  /** Includes reasoning tokens (OpenAI semantics). */
  outputTokens: number;
  reasoningTokens: number;
  /** Of `inputTokens`, those read from the context cache (billed at the cached rate). */
  cachedInputTokens: number;
  /** Output tokens that were images (billed at the image rate). */
  imageOutputTokens?: number;
  /** Of `inputTokens`, those spent on tool use (Gemini `toolUsePromptTokenCount`); already in `inputTokens`. */
  toolUsePromptTokens?: number;
  /** Of `inputTokens`, those that were audio (billed at the audio input rate where one exists). */
  audioInputTokens?: number;
  /** Of `cachedInputTokens`, those that were audio (billed at the cached audio rate). */
  cachedAudioInputTokens?: number;
  /** Output tokens that were audio (TTS; billed at the audio output rate). */
  audioOutputTokens?: number;
  /** The tier that served the call, lower-case (`standard`, `flex`, `priority`), when the upstream said. */
  serviceTier?: string;
}

/** What telemetry records about a finished upstream call. */
export interface CallOutcome {
  responseId?: string;
  responseModel?: string;
  finishReasons: string[];
  usage?: NormalizedUsage;
  /** Warnings with stable codes (ignored-but-safe parameters), recorded on the attempt span. */
  warnings: string[];
}

export interface ProviderCall {
  request: ChatCompletionRequest;
  target: Target;
  /** Aborted when the client disconnects or the gateway shuts down. */
  signal: ClientSignal;
  /** W3C headers of the attempt span (`traceparent`, `tracestate`) to send upstream; may be empty. */
  traceHeaders: Record<string, string>;
  /**
   * Called once when the request is written to an upstream connection, with the time it waited
   * for one (pool queue and connect). The attempt timeout starts then.
   */
  onRequestWritten?: (queuedMs: number) => void;
}

export interface ChatResult {
  status: number;
  completion: ChatCompletion;
  outcome: CallOutcome;
}

/**
 * A stream whose upstream already answered 200. Iterating yields OpenAI chunks as upstream chunks
 * arrive; `outcome()` is complete once iteration ended. A failure mid-stream throws from the
 * iterator (an `UpstreamError`); `return()` on the iterator aborts the upstream call.
 */
export interface StreamResult {
  status: number;
  chunks: AsyncIterable<ChatCompletionChunk>;
  outcome(): CallOutcome;
}

/** An embeddings call: the same per-attempt fields as a chat call, with the embeddings request. */
export interface EmbedCall extends Omit<ProviderCall, 'request'> {
  request: EmbeddingsRequest;
}

export interface EmbedResult {
  status: number;
  response: EmbeddingsResponse;
  outcome: CallOutcome;
}

/** One model of an upstream's model list, in provider-neutral terms. */
export interface ProviderModel {
  /** Bare id a client puts in `model` (`gemini-2.5-flash`). */
  id: string;
  /** Organisation that owns it (`google`). */
  ownedBy: string;
  /** What it serves, e.g. `chat`, `embeddings`. */
  capabilities: ReadonlyArray<'chat' | 'embeddings'>;
}

export interface Provider {
  readonly name: ProviderName;
  /** `gen_ai.provider.name` of its spans (`gcp.gemini`, `openai`). */
  readonly telemetryName: string;
  /** `gen_ai.operation.name` of its attempt spans (`generate_content`, `chat`). */
  readonly operationName: string;
  /** Throws `InvalidRequestError` / `UpstreamError`. Resolves once the whole answer is read. */
  chat(call: ProviderCall): Promise<ChatResult>;
  /** Throws before the first chunk for errors that have an HTTP status upstream. */
  chatStream(call: ProviderCall): Promise<StreamResult>;
  /** Embeddings (optional: a provider without it answers 400 for embeddings). Throws like `chat`. */
  embed?(call: EmbedCall): Promise<EmbedResult>;
  /** The upstream's model list with the target's credential. Throws `UpstreamError`. */
  listModels?(target: Target, signal: ClientSignal): Promise<ProviderModel[]>;
  /** Releases keep-alive connection pools at shutdown. */
  close?(): Promise<void>;
}
