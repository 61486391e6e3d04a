/**
 * Shapes of the chat-completions answer and stream chunks as sidegate writes them.
 * Fields marked "non-strict" appear only when strict compliance is off (DESIGN Decision 9).
 */

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface ChatCompletionToolCall {
  id: string;
  type: 'function';
  function: {
    name: string;
    arguments: string;
    /** non-strict */
    thought_signature?: string;
  };
}

export type ContentPartsEntry =
  | { type: 'text'; text: string; thought_signature?: string }
  | { type: 'image'; image_url: { url: string }; thought_signature?: string }
  | { type: 'executable_code'; language: string; code: string }
  | { type: 'code_execution_result'; outcome: string; output: string };

export interface ContentBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}

/** OpenAI's web-search citation; indexes are UTF-16 positions in `content`, end exclusive. */
export interface UrlCitationAnnotation {
  type: 'url_citation';
  url_citation: { start_index: number; end_index: number; url: string; title: string };
}

/** One token of OpenAI's `choices[i].logprobs.content`. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] | null }>;
}

export interface ChoiceLogprobs {
  content: TokenLogprob[] | null;
  refusal: null;
}

export interface MessageAudio {
  id: string;
  data: string;
  expires_at: number;
  transcript: string;
}

export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  refusal: null;
  tool_calls?: ChatCompletionToolCall[];
  /** Web-search citations (OpenAI defines them, so strict mode too). */
  annotations?: UrlCitationAnnotation[];
  /** Audio output (OpenAI's shape): base64 `pcm16` or `wav` as asked. */
  audio?: MessageAudio;
  /** non-strict */
  content_parts?: ContentPartsEntry[];
  /** non-strict */
  content_blocks?: ContentBlock[];
  /** non-strict: signature of a text answer (Gemini puts it on the last part). */
  thought_signature?: string;
}

export interface ChatCompletionChoice {
  index: number;
  message: ChatCompletionMessage;
  finish_reason: FinishReason;
  logprobs: ChoiceLogprobs | null;
  /** non-strict */
  groundingMetadata?: unknown;
  /** non-strict: Gemini's URL context retrievals (`urlMetadata[]`). */
  urlContextMetadata?: unknown;
  /** non-strict: Gemini's per-candidate safety ratings. */
  safetyRatings?: unknown;
}

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number; audio_tokens?: number };
  completion_tokens_details?: { reasoning_tokens: number; audio_tokens?: number };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: ChatCompletionChoice[];
  usage?: CompletionUsage;
  /** The tier that served the call, when the upstream said (OpenAI's field). */
  service_tier?: string;
  system_fingerprint?: null;
  /** non-strict: why Gemini blocked the prompt (`blockReason`, `safetyRatings`). */
  promptFeedback?: unknown;
}

export interface ChatCompletionChunkDelta {
  role?: 'assistant';
  content?: string | null;
  tool_calls?: Array<ChatCompletionToolCall & { index: number }>;
  annotations?: UrlCitationAnnotation[];
  /** Streamed audio: `{id, data}` per chunk, then `{id, expires_at, transcript}` on the last. */
  audio?: Partial<MessageAudio> & { id: string };
  /** non-strict */
  content_blocks?: ContentBlock[];
  /** non-strict */
  content_parts?: ContentPartsEntry[];
  /** non-strict */
  thought_signature?: string;
}

export interface ChatCompletionChunkChoice {
  index: number;
  delta: ChatCompletionChunkDelta;
  finish_reason: FinishReason | null;
  logprobs: ChoiceLogprobs | null;
  /** non-strict */
  groundingMetadata?: unknown;
  /** non-strict */
  urlContextMetadata?: unknown;
  /** non-strict */
  safetyRatings?: unknown;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChatCompletionChunkChoice[];
  usage?: CompletionUsage | null;
  service_tier?: string;
  /** non-strict */
  promptFeedback?: unknown;
}
