/**
 * The public `POST /v1/responses` request, validated strictly at our door (issue 14 point 1).
 *
 * Unknown fields are refused, as on the chat route. Fields OpenAI defines that this gateway cannot
 * honour for Gemini (`background: true`, `conversation`, `prompt`, `max_tool_calls`, hosted tools
 * other than web search and code interpreter, …) are declared here so that the translator can
 * refuse them with a message naming the feature rather than "unrecognized". SDK defaults that
 * change nothing for Gemini are accepted and become `ignored_param` warnings in the translator.
 *
 * Non-OpenAI fields (round-tripping Gemini thought signatures, DESIGN Decision 9): `thought_signature`
 * on `function_call` and assistant `message` items, and Gemini's signature as `encrypted_content`
 * of `reasoning` items. Built once at import; the request path only calls `parse`.
 */
import { z } from 'zod';

const Detail = z.enum(['auto', 'low', 'high', 'original']).nullable().optional();

const InputText = z.strictObject({ type: z.literal('input_text'), text: z.string() });

const InputImage = z.strictObject({
  type: z.literal('input_image'),
  image_url: z.string().min(1).nullable().optional(),
  file_id: z.string().min(1).nullable().optional(),
  detail: Detail,
});

const InputFile = z.strictObject({
  type: z.literal('input_file'),
  file_id: z.string().min(1).nullable().optional(),
  file_data: z.string().min(1).nullable().optional(),
  file_url: z.string().min(1).nullable().optional(),
  filename: z.string().nullable().optional(),
});

const OutputText = z.strictObject({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()).optional(),
  logprobs: z.array(z.unknown()).nullable().optional(),
});

const Refusal = z.strictObject({ type: z.literal('refusal'), refusal: z.string() });

/** Any content part of a message; which role may use which is checked by the translator (with `param`). */
const MessagePart = z.discriminatedUnion('type', [InputText, InputImage, InputFile, OutputText, Refusal]);

const ItemStatus = z.enum(['in_progress', 'completed', 'incomplete']).nullable().optional();

const MessageItem = z.strictObject({
  type: z.literal('message'),
  id: z.string().min(1).nullable().optional(),
  role: z.enum(['user', 'system', 'developer', 'assistant']),
  content: z.union([z.string(), z.array(MessagePart)]),
  status: ItemStatus,
  /** Sent back by the Vercel AI SDK for assistant text (OpenAI's commentary/final phases). */
  phase: z.string().nullable().optional(),
  /** Non-strict: Gemini's signature of an assistant text answer. */
  thought_signature: z.string().min(1).optional(),
});

const FunctionCallItem = z.strictObject({
  type: z.literal('function_call'),
  id: z.string().min(1).nullable().optional(),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  status: ItemStatus,
  /** Non-strict: Gemini's signature of the call. */
  thought_signature: z.string().min(1).optional(),
});

const FunctionCallOutputItem = z.strictObject({
  type: z.literal('function_call_output'),
  id: z.string().min(1).nullable().optional(),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(z.discriminatedUnion('type', [InputText, InputImage, InputFile]))]),
  status: ItemStatus,
});

const ReasoningItem = z.strictObject({
  type: z.literal('reasoning'),
  id: z.string().min(1).nullable().optional(),
  summary: z.array(z.strictObject({ type: z.literal('summary_text'), text: z.string() })),
  content: z.array(z.strictObject({ type: z.literal('reasoning_text'), text: z.string() })).nullable().optional(),
  encrypted_content: z.string().nullable().optional(),
  status: ItemStatus,
});

const CodeInterpreterCallItem = z.strictObject({
  type: z.literal('code_interpreter_call'),
  id: z.string().min(1),
  code: z.string().nullable(),
  container_id: z.string().optional(),
  outputs: z
    .array(
      z.discriminatedUnion('type', [
        z.strictObject({ type: z.literal('logs'), logs: z.string() }),
        z.strictObject({ type: z.literal('image'), url: z.string() }),
      ]),
    )
    .nullable()
    .optional(),
  status: z.string().optional(),
});

const WebSearchCallItem = z.strictObject({
  type: z.literal('web_search_call'),
  id: z.string().min(1),
  status: z.string().optional(),
  action: z.unknown().optional(),
});

const ItemReference = z.strictObject({ type: z.literal('item_reference'), id: z.string().min(1) });

const InputItemUnion = z.discriminatedUnion('type', [
  MessageItem,
  FunctionCallItem,
  FunctionCallOutputItem,
  ReasoningItem,
  CodeInterpreterCallItem,
  WebSearchCallItem,
  ItemReference,
]);

/** An "easy" input message (`{role, content}` without `type`) is a `message` item. */
export const InputItem = z.preprocess(
  (value) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) && !('type' in value) && 'role' in value
      ? { type: 'message', ...value }
      : value,
  InputItemUnion,
);

const FunctionTool = z.strictObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  strict: z.boolean().nullable().optional(),
});

const WebSearchTool = z.strictObject({
  type: z.enum(['web_search', 'web_search_preview', 'web_search_2025_08_26', 'web_search_preview_2025_03_11']),
  search_context_size: z.enum(['low', 'medium', 'high']).optional(),
  user_location: z.unknown().optional(),
  filters: z.unknown().optional(),
});

const CodeInterpreterTool = z.strictObject({
  type: z.literal('code_interpreter'),
  container: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
});

/** Tools of the OpenAI API with no Gemini counterpart: declared so that the refusal can name them. */
const UnsupportedTool = z.looseObject({
  type: z.enum([
    'file_search',
    'computer_use_preview',
    'computer_use',
    'image_generation',
    'mcp',
    'local_shell',
    'shell',
    'custom',
    'apply_patch',
    'tool_search',
  ]),
});

export const ResponsesTool = z.discriminatedUnion('type', [FunctionTool, WebSearchTool, CodeInterpreterTool, UnsupportedTool]);

const ToolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.strictObject({ type: z.literal('function'), name: z.string().min(1) }),
  // Forcing a hosted tool or an allowed-tools subset: declared so that the refusal can name it.
  z.looseObject({ type: z.string().min(1) }),
]);

const TextFormat = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text') }),
  z.strictObject({ type: z.literal('json_object') }),
  z.strictObject({
    type: z.literal('json_schema'),
    name: z.string().min(1),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullable().optional(),
    strict: z.boolean().nullable().optional(),
  }),
]);

export const INCLUDE_VALUES = [
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
  'web_search_call.action.sources',
  'web_search_call.results',
  'code_interpreter_call.outputs',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'file_search_call.results',
] as const;

export const ResponsesRequestSchema = z.strictObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(InputItem)]).optional(),
  instructions: z.string().nullable().optional(),
  tools: z.array(ResponsesTool).nullable().optional(),
  tool_choice: ToolChoice.nullable().optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  max_output_tokens: z.number().int().positive().nullable().optional(),
  reasoning: z
    .strictObject({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullable().optional(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullable().optional(),
      generate_summary: z.enum(['auto', 'concise', 'detailed']).nullable().optional(),
    })
    .nullable()
    .optional(),
  text: z
    .strictObject({
      format: TextFormat.nullable().optional(),
      verbosity: z.enum(['low', 'medium', 'high']).nullable().optional(),
    })
    .nullable()
    .optional(),
  metadata: z.record(z.string().max(64), z.string().max(512)).nullable().optional(),
  user: z.string().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.strictObject({ include_obfuscation: z.boolean().optional() }).nullable().optional(),
  store: z.boolean().nullable().optional(),
  previous_response_id: z.string().min(1).nullable().optional(),
  include: z.array(z.enum(INCLUDE_VALUES)).nullable().optional(),
  truncation: z.enum(['auto', 'disabled']).nullable().optional(),
  service_tier: z.string().nullable().optional(),
  prompt_cache_key: z.string().nullable().optional(),
  prompt_cache_retention: z.string().nullable().optional(),
  safety_identifier: z.string().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  // OpenAI features Gemini cannot honour; refused by the translator when set.
  background: z.boolean().nullable().optional(),
  conversation: z.unknown().optional(),
  prompt: z.unknown().optional(),
  max_tool_calls: z.number().int().nullable().optional(),
});

export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;
export type InputItem = z.infer<typeof InputItemUnion>;
export type MessageItem = z.infer<typeof MessageItem>;
export type MessagePart = z.infer<typeof MessagePart>;
export type FunctionCallItem = z.infer<typeof FunctionCallItem>;
export type FunctionCallOutputItem = z.infer<typeof FunctionCallOutputItem>;
export type ReasoningItem = z.infer<typeof ReasoningItem>;
export type CodeInterpreterCallItem = z.infer<typeof CodeInterpreterCallItem>;
export type ResponsesTool = z.infer<typeof ResponsesTool>;
