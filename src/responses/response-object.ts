/**
 * Shapes of the Responses API answer as sidegate writes them (issue 14 point 2): the `response`
 * object, its output items and the typed stream events. Fields marked "non-strict" appear only
 * when strict compliance is off (DESIGN Decision 9); the store always keeps them.
 */

export interface UrlCitation {
  type: 'url_citation';
  start_index: number;
  end_index: number;
  url: string;
  title: string;
}

export interface OutputTextPart {
  type: 'output_text';
  text: string;
  annotations: UrlCitation[];
  logprobs: [];
}

export interface OutputMessageItem {
  type: 'message';
  id: string;
  status: 'completed' | 'incomplete' | 'in_progress';
  role: 'assistant';
  content: OutputTextPart[];
  /** non-strict: Gemini's signature of the text answer. */
  thought_signature?: string;
}

export interface OutputFunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'completed' | 'in_progress';
  /** non-strict: Gemini's signature of the call (Gemini 3 needs it back). */
  thought_signature?: string;
}

export interface OutputReasoningItem {
  type: 'reasoning';
  id: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  /** Gemini's thought signature (with `include: ["reasoning.encrypted_content"]`, or non-strict). */
  encrypted_content?: string;
  status?: 'completed' | 'in_progress';
}

export interface OutputCodeInterpreterCallItem {
  type: 'code_interpreter_call';
  id: string;
  code: string;
  container_id: string;
  outputs: Array<{ type: 'logs'; logs: string }> | null;
  status: 'completed' | 'failed' | 'in_progress';
}

export interface OutputWebSearchCallItem {
  type: 'web_search_call';
  id: string;
  status: 'completed';
  action: { type: 'search'; query: string; queries?: string[]; sources?: Array<{ type: 'url'; url: string }> };
}

export type OutputItem =
  | OutputMessageItem
  | OutputFunctionCallItem
  | OutputReasoningItem
  | OutputCodeInterpreterCallItem
  | OutputWebSearchCallItem;

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponseError {
  code: string;
  message: string;
}

/** The echo of the request a response carries (OpenAI returns these on every response object). */
export interface ResponseEcho {
  model: string;
  instructions: string | null;
  metadata: Record<string, string>;
  tools: unknown[];
  tool_choice: unknown;
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  previous_response_id: string | null;
  reasoning: { effort: string | null; summary: string | null };
  text: { format: unknown; verbosity?: string };
  truncation: 'disabled' | 'auto';
  store: boolean;
  user: string | null;
  background: false;
  service_tier: string;
}

export interface ResponseObject extends ResponseEcho {
  id: string;
  object: 'response';
  created_at: number;
  completed_at?: number | null;
  status: 'completed' | 'incomplete' | 'failed' | 'in_progress';
  error: ResponseError | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  output: OutputItem[];
  /** Convenience field the SDKs also compute: the text of every output_text part. */
  output_text: string;
  usage: ResponseUsage | null;
}

/** One typed server-sent event; `type` is also written as the SSE `event:` name. */
export interface ResponseStreamEvent {
  type: string;
  sequence_number: number;
  [key: string]: unknown;
}
