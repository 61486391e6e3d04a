/**
 * The public chat-completions request, validated strictly at our door.
 *
 * Unknown top-level fields are refused (as OpenAI itself does: "Unrecognized request argument
 * supplied"), so a client never believes a parameter took effect when it did not. The few
 * non-OpenAI fields are the ones the seed defines (`thinking`, `content_parts`, `content_blocks`,
 * `function.thought_signature`). Built once at import; the request path only calls `parse`.
 */
import { z } from 'zod';

/**
 * OpenAI's per-part prompt-cache hint. Gemini caches implicitly, so it is accepted and ignored
 * (warning `ignored_param:messages.content.prompt_cache_breakpoint`).
 */
const CacheBreakpoint = z.strictObject({ mode: z.literal('explicit') }).optional();

const TextPart = z.strictObject({ type: z.literal('text'), text: z.string(), prompt_cache_breakpoint: CacheBreakpoint });

/**
 * A video clip and frame rate for a video part (LiteLLM's `video_metadata`; Gemini's
 * `videoMetadata`): offsets as `"10s"` durations or numbers of seconds.
 */
const VideoMetadata = z.strictObject({
  start_offset: z.union([z.string(), z.number()]).optional(),
  end_offset: z.union([z.string(), z.number()]).optional(),
  fps: z.number().optional(),
});

const ImageUrl = z.strictObject({
  url: z.string().min(1),
  detail: z.enum(['auto', 'low', 'high']).optional(),
  /** Explicit MIME type for provider file URLs (saves a files-API lookup). */
  mime_type: z.string().min(1).optional(),
  /** Gemini extension for video URLs (YouTube, provider files). */
  video_metadata: VideoMetadata.optional(),
});

const ImageUrlPart = z.strictObject({ type: z.literal('image_url'), image_url: ImageUrl, prompt_cache_breakpoint: CacheBreakpoint });

const InputAudioPart = z.strictObject({
  type: z.literal('input_audio'),
  input_audio: z.strictObject({ data: z.string().min(1), format: z.string().min(1) }),
  prompt_cache_breakpoint: CacheBreakpoint,
});

/**
 * OpenAI's `file` part: `file_data` (a data URI, or bare base64 typed by `filename`'s extension)
 * goes inline; `file_id` names a file uploaded through `POST /v1/files` (the provider's file id).
 */
const FilePart = z.strictObject({
  type: z.literal('file'),
  file: z
    .strictObject({
      file_data: z.string().min(1).optional(),
      file_id: z.string().min(1).optional(),
      filename: z.string().optional(),
      /** LiteLLM's Gemini extensions on file parts. */
      detail: z.enum(['auto', 'low', 'high']).optional(),
      video_metadata: VideoMetadata.optional(),
    })
    .refine((f) => (f.file_data === undefined) !== (f.file_id === undefined), 'exactly one of file_data and file_id is required'),
  prompt_cache_breakpoint: CacheBreakpoint,
});

export const UserContentPart = z.discriminatedUnion('type', [TextPart, ImageUrlPart, InputAudioPart, FilePart]);

/**
 * Parts of an assistant message's `content`: OpenAI's text and refusal parts, plus (as Portkey
 * users send a generated image back for multi-turn editing) `image_url` parts, each optionally
 * carrying the `thought_signature` its Gemini part had (strict compliance off).
 */
const AssistantContentPart = z.discriminatedUnion('type', [
  TextPart.extend({ thought_signature: z.string().optional() }),
  z.strictObject({ type: z.literal('refusal'), refusal: z.string() }),
  ImageUrlPart.extend({ thought_signature: z.string().optional() }),
]);

/** Entries of `content_parts` (Decision 9) as a client sends them back in multi-turn image editing. */
const ContentPartsEntry = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string(), thought_signature: z.string().optional() }),
  z.object({
    type: z.literal('image'),
    image_url: z.object({ url: z.string().min(1) }),
    thought_signature: z.string().optional(),
  }),
  z.object({
    type: z.literal('executable_code'),
    language: z.string().optional(),
    code: z.string(),
  }),
  z.object({
    type: z.literal('code_execution_result'),
    outcome: z.string().optional(),
    output: z.string().optional(),
  }),
]);

const ContentBlock = z.object({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().optional(),
});

const ToolCall = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({
    name: z.string().min(1),
    arguments: z.string(),
    thought_signature: z.string().optional(),
  }),
});

/** What SDKs echo back from an answer's `message.annotations` (web-search citations). */
const Annotation = z.strictObject({
  type: z.literal('url_citation'),
  url_citation: z.strictObject({
    start_index: z.number().int(),
    end_index: z.number().int(),
    title: z.string(),
    url: z.string(),
  }),
});

const SystemMessage = z.strictObject({
  role: z.enum(['system', 'developer']),
  content: z.union([z.string(), z.array(TextPart).min(1)]),
  name: z.string().optional(),
});

const UserMessage = z.strictObject({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(UserContentPart).min(1)]),
  name: z.string().optional(),
});

const AssistantMessage = z.strictObject({
  role: z.literal('assistant'),
  content: z.union([z.string(), z.array(AssistantContentPart), z.null()]).optional(),
  tool_calls: z.array(ToolCall).optional(),
  /** Legacy (pre-tools) function calling; sent upstream like a tool call. */
  function_call: z.strictObject({ name: z.string().min(1), arguments: z.string() }).nullable().optional(),
  name: z.string().optional(),
  refusal: z.string().nullable().optional(),
  /** Echoed from an OpenAI answer; Gemini has no use for them (warnings when set). */
  annotations: z.array(Annotation).nullable().optional(),
  audio: z
    .strictObject({
      id: z.string(),
      data: z.string().optional(),
      expires_at: z.number().optional(),
      transcript: z.string().optional(),
    })
    .nullable()
    .optional(),
  content_parts: z.array(ContentPartsEntry).optional(),
  content_blocks: z.array(ContentBlock).optional(),
  /** Kept so clients can send back a text answer's signature (strict compliance off). */
  thought_signature: z.string().optional(),
});

const ToolMessage = z.strictObject({
  role: z.literal('tool'),
  content: z.union([z.string(), z.array(UserContentPart).min(1)]),
  tool_call_id: z.string().min(1),
  /** LangChain's tool node and others name the tool; the call id already does (warning). */
  name: z.string().optional(),
});

/** Legacy (pre-tools) function result: answers the assistant `function_call` named `name`. */
const FunctionMessage = z.strictObject({
  role: z.literal('function'),
  name: z.string().min(1),
  content: z.string().nullable(),
});

export const ChatMessage = z.discriminatedUnion('role', [SystemMessage, UserMessage, AssistantMessage, ToolMessage, FunctionMessage]);

const FunctionDefinition = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  strict: z.boolean().nullable().optional(),
});

const FunctionTool = z.strictObject({ type: z.literal('function'), function: FunctionDefinition });

const CodeExecutionTool = z.strictObject({ type: z.literal('code_execution') });

/** Gemini's URL context tool (issue 23 row 1): the model reads the URLs named in the prompt. */
const UrlContextTool = z.strictObject({ type: z.literal('url_context') });

export const Tool = z.discriminatedUnion('type', [FunctionTool, CodeExecutionTool, UrlContextTool]);

/** OpenAI's `web_search_options` (chat completions), exactly as OpenAI defines it. */
const WebSearchOptions = z.strictObject({
  search_context_size: z.enum(['low', 'medium', 'high']).optional(),
  user_location: z
    .strictObject({
      type: z.literal('approximate'),
      approximate: z.strictObject({
        city: z.string().optional(),
        country: z.string().optional(),
        region: z.string().optional(),
        timezone: z.string().optional(),
      }),
    })
    .nullable()
    .optional(),
});

/**
 * Gemini safety settings as a request extension (LiteLLM's `safety_settings`, passed as Gemini
 * spells them; docs/gemini-fields.md). At most one entry per category, as Gemini requires.
 */
const SafetySetting = z.strictObject({
  category: z.enum([
    'HARM_CATEGORY_HARASSMENT',
    'HARM_CATEGORY_HATE_SPEECH',
    'HARM_CATEGORY_SEXUALLY_EXPLICIT',
    'HARM_CATEGORY_DANGEROUS_CONTENT',
    'HARM_CATEGORY_CIVIC_INTEGRITY',
  ]),
  threshold: z.enum(['BLOCK_LOW_AND_ABOVE', 'BLOCK_MEDIUM_AND_ABOVE', 'BLOCK_ONLY_HIGH', 'BLOCK_NONE', 'OFF']),
});

const ToolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.strictObject({ type: z.literal('function'), function: z.strictObject({ name: z.string().min(1) }) }),
]);

const ResponseFormat = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text') }),
  z.strictObject({ type: z.literal('json_object') }),
  z.strictObject({
    type: z.literal('json_schema'),
    json_schema: z.strictObject({
      name: z.string().min(1),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

const Thinking = z.strictObject({
  type: z.enum(['enabled', 'disabled']),
  budget_tokens: z.number().int().min(-1).optional(),
});

export const ChatCompletionRequestSchema = z.strictObject({
  model: z.string().min(1),
  messages: z.array(ChatMessage).min(1),
  max_tokens: z.number().int().positive().nullable().optional(),
  max_completion_tokens: z.number().int().positive().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  n: z.number().int().min(1).max(8).nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z
    .strictObject({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() })
    .nullable()
    .optional(),
  stop: z.union([z.string(), z.array(z.string()).max(5)]).nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  seed: z.number().int().nullable().optional(),
  response_format: ResponseFormat.nullable().optional(),
  tools: z.array(Tool).optional(),
  tool_choice: ToolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  user: z.string().optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  store: z.boolean().nullable().optional(),
  /** OpenAI's tiers; a Gemini target maps them (convert-request.ts), an OpenAI target gets them as sent. */
  service_tier: z.string().nullable().optional(),
  modalities: z.array(z.enum(['text', 'image', 'audio'])).min(1).nullable().optional(),
  /** Audio output, as OpenAI defines it (`voice` a name or `{id}`, `format` one of OpenAI's). */
  audio: z
    .strictObject({
      voice: z.union([z.string().min(1), z.strictObject({ id: z.string().min(1) })]),
      format: z.enum(['wav', 'aac', 'mp3', 'flac', 'opus', 'pcm16']),
    })
    .nullable()
    .optional(),
  thinking: Thinking.optional(),
  reasoning_effort: z.enum(['minimal', 'low', 'medium', 'high']).nullable().optional(),
  /** Legacy (pre-tools) function calling: treated as function tools and a tool choice. */
  functions: z.array(FunctionDefinition).optional(),
  function_call: z.union([z.enum(['none', 'auto']), z.strictObject({ name: z.string().min(1) })]).optional(),
  /** OpenAI-side caching, abuse and output hints: accepted, ignored for Gemini (warnings). */
  prompt_cache_key: z.string().nullable().optional(),
  prompt_cache_retention: z.string().nullable().optional(),
  safety_identifier: z.string().nullable().optional(),
  verbosity: z.enum(['low', 'medium', 'high']).nullable().optional(),
  /**
   * OpenAI parameters with no Gemini equivalent whose loss a caller would notice: accepted here
   * (an OpenAI-compatible target gets them as sent), refused with a 400 for a Gemini target.
   */
  logit_bias: z.record(z.string(), z.number()).nullable().optional(),
  prediction: z.record(z.string(), z.unknown()).nullable().optional(),
  /** Google Search grounding for a Gemini target (issue 23 row 2). */
  web_search_options: WebSearchOptions.nullable().optional(),
  moderation: z.record(z.string(), z.unknown()).nullable().optional(),
  prompt_cache_options: z.record(z.string(), z.unknown()).nullable().optional(),
  /**
   * Request extensions for Gemini (issue 23; LiteLLM's and the AI SDK's names): a context cache
   * made with `POST /v1beta/cachedContents`, and safety settings.
   */
  cached_content: z
    .string()
    .regex(/^cachedContents\/[A-Za-z0-9_-]+$/, 'must be a cache name, cachedContents/<id>')
    .nullable()
    .optional(),
  safety_settings: z
    .array(SafetySetting)
    .refine((list) => new Set(list.map((s) => s.category)).size === list.length, 'at most one setting per category')
    .nullable()
    .optional(),
});

export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;
export type ChatMessage = z.infer<typeof ChatMessage>;
export type UserContentPart = z.infer<typeof UserContentPart>;
export type AssistantContentPart = z.infer<typeof AssistantContentPart>;
export type Tool = z.infer<typeof Tool>;
export type WebSearchOptions = z.infer<typeof WebSearchOptions>;
export type ToolCall = z.infer<typeof ToolCall>;
