/**
 * Chat-completion chunks → the Responses `response` object and its typed stream events (issue 14
 * points 2 and 3). Pure and stateful per call, shaped like the chat path's stream translator:
 * `start` opens, `push` translates one chunk, `finish` (or `fail`) ends. A non-streamed
 * completion goes through the same machine as one chunk (`completionToResponse`), so a streamed
 * and a non-streamed answer to the same upstream reply have the same items.
 *
 * Reads the chat path's non-strict fields (the route asks for them, DESIGN Decision 9):
 * `content_blocks` → a `reasoning` item (summary text, signature as `encrypted_content`);
 * `content_parts` → text and `code_interpreter_call` items in part order (their fenced twin in
 * `content` is then skipped); `tool_calls` → `function_call` items with their signature;
 * `thought_signature` → the message item's; `groundingMetadata` → `url_citation` annotations
 * and a `web_search_call` item. Only choice 0 is read (the Responses API has no `n`).
 *
 * Every event carries `sequence_number`, counting from 0. Signatures are always kept on the
 * items `response()` returns (what the store saves); `expose` decides what events show.
 */
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionChunkDelta, CompletionUsage, ContentPartsEntry } from '../openai/chat-response.js';
import { groundingAnnotations, webSearchCall } from './grounding.js';
import type {
  OutputCodeInterpreterCallItem,
  OutputFunctionCallItem,
  OutputItem,
  OutputMessageItem,
  OutputReasoningItem,
  ResponseEcho,
  ResponseError,
  ResponseObject,
  ResponseStreamEvent,
  ResponseUsage,
} from './response-object.js';
import { itemId, type ItemPrefix } from './response-ids.js';

export interface Exposure {
  /** Non-strict: `thought_signature` on message and function_call items. */
  signatures: boolean;
  /** `encrypted_content` of reasoning items (asked for with `include`, or non-strict). */
  encryptedContent: boolean;
}

export interface ResponseBuilderOptions {
  responseId: string;
  createdAt: number;
  echo: ResponseEcho;
  /** Index of the first output item among the response's items (input items come first). */
  firstItemIndex: number;
  expose: Exposure;
  now?: () => number;
}

type Open =
  | { kind: 'message'; item: OutputMessageItem; index: number }
  | { kind: 'reasoning'; item: OutputReasoningItem; index: number; summaryOpen: boolean }
  | { kind: 'code'; item: OutputCodeInterpreterCallItem; index: number };

type Event = Record<string, unknown> & { type: string };

/** Removes what the client must not see; never mutates the stored item. */
export function presentItem(item: OutputItem, expose: Exposure): OutputItem {
  if (item.type === 'message' || item.type === 'function_call') {
    if (expose.signatures || item.thought_signature === undefined) return item;
    const { thought_signature: _s, ...rest } = item;
    return rest as OutputItem;
  }
  if (item.type === 'reasoning' && !expose.encryptedContent && item.encrypted_content !== undefined) {
    const { encrypted_content: _e, ...rest } = item;
    return rest;
  }
  return item;
}

export function presentResponse(response: ResponseObject, expose: Exposure): ResponseObject {
  return { ...response, output: response.output.map((item) => presentItem(item, expose)) };
}

export function convertUsage(usage: CompletionUsage | null | undefined): ResponseUsage | null {
  if (!usage) return null;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

export class ResponseBuilder {
  private readonly options: ResponseBuilderOptions;
  private seq = 0;
  private readonly output: OutputItem[] = [];
  private open: Open | undefined;
  private nextIndex: number;
  private grounding: unknown;
  private finishReason: string | null = null;
  private usage: ResponseUsage | null = null;
  private status: ResponseObject['status'] = 'in_progress';
  private error: ResponseError | null = null;
  private completedAt: number | null = null;
  /** Set once a delta carried `content_parts`: from then on they, not `content`, are read. */
  private structured = false;
  /** Text read from `content` before the stream turned structured (sent again in content_parts). */
  private textBeforeStructured = '';

  constructor(options: ResponseBuilderOptions) {
    this.options = options;
    this.nextIndex = options.firstItemIndex;
  }

  /** The response as it stands, with everything the store keeps (signatures included). */
  response(): ResponseObject {
    const text = this.output
      .filter((i): i is OutputMessageItem => i.type === 'message')
      .flatMap((i) => i.content.map((c) => c.text))
      .join('');
    const reason = this.finishReason === 'length' ? 'max_output_tokens' : this.finishReason === 'content_filter' ? 'content_filter' : undefined;
    return {
      id: this.options.responseId,
      object: 'response',
      created_at: this.options.createdAt,
      status: this.status,
      ...(this.completedAt !== null ? { completed_at: this.completedAt } : {}),
      error: this.error,
      incomplete_details: this.status === 'incomplete' && reason ? { reason } : null,
      ...this.options.echo,
      output: [...this.output],
      output_text: text,
      usage: this.usage,
    };
  }

  start(): ResponseStreamEvent[] {
    const snapshot = this.snapshot();
    return [this.event({ type: 'response.created', response: snapshot }), this.event({ type: 'response.in_progress', response: snapshot })];
  }

  push(chunk: ChatCompletionChunk): ResponseStreamEvent[] {
    const out: ResponseStreamEvent[] = [];
    if (chunk.usage) this.usage = convertUsage(chunk.usage);
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) return out;
    if (choice.groundingMetadata != null) this.grounding = choice.groundingMetadata;
    this.delta(choice.delta, out);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return out;
  }

  /** Ends a clean stream: closes the open item, then `response.completed` or `.incomplete`. */
  finish(): ResponseStreamEvent[] {
    const out: ResponseStreamEvent[] = [];
    const incomplete = this.finishReason === 'length' || this.finishReason === 'content_filter';
    this.close(out, incomplete ? 'incomplete' : 'completed');
    const search = webSearchCall(this.grounding, this.newId('ws'));
    if (search) {
      const index = this.output.push(search) - 1;
      out.push(this.event({ type: 'response.output_item.added', output_index: index, item: this.shown(search) }));
      out.push(this.event({ type: 'response.output_item.done', output_index: index, item: this.shown(search) }));
    }
    this.status = incomplete ? 'incomplete' : 'completed';
    this.completedAt = Math.floor((this.options.now ?? Date.now)() / 1000);
    out.push(this.event({ type: incomplete ? 'response.incomplete' : 'response.completed', response: this.snapshot() }));
    return out;
  }

  /** Ends a stream that failed after it started: `response.failed`, then an `error` event. */
  fail(error: { type: string; code: string | null; message: string; param?: string | null }): ResponseStreamEvent[] {
    this.status = 'failed';
    const code = error.code ?? error.type;
    const param = error.param ?? null;
    this.error = { code, message: error.message };
    return [
      this.event({ type: 'response.failed', response: this.snapshot() }),
      // OpenAI's documented fields at the top, and the same nested under `error`: the `openai` SDK
      // throws on a stream event with an `error` field, so a cut stream never looks complete
      // (as DESIGN Decision 8 does for chat).
      this.event({ type: 'error', code, message: error.message, param, error: { type: error.type, code, message: error.message, param } }),
    ];
  }

  // Events are copies: the items they show keep changing after the event was made.
  private snapshot(): ResponseObject {
    return structuredClone(presentResponse(this.response(), this.options.expose));
  }

  private shown(item: OutputItem): OutputItem {
    return structuredClone(presentItem(item, this.options.expose));
  }

  private event(body: Event): ResponseStreamEvent {
    return { ...body, sequence_number: this.seq++ } as ResponseStreamEvent;
  }

  private newId(prefix: ItemPrefix): string {
    return itemId(this.options.responseId, prefix, this.nextIndex++);
  }

  private delta(delta: ChatCompletionChunkDelta, out: ResponseStreamEvent[]): void {
    for (const block of delta.content_blocks ?? []) this.reasoning(block.thinking, block.signature, out);
    if (delta.content_parts !== undefined) {
      let skip = this.structured ? '' : this.textBeforeStructured;
      this.structured = true;
      for (const entry of delta.content_parts) {
        // The text before the first structured part was already read from `content`.
        if (skip !== '' && entry.type === 'text' && skip.startsWith(entry.text)) {
          skip = skip.slice(entry.text.length);
          if (entry.thought_signature) this.signText(entry.thought_signature);
          continue;
        }
        skip = '';
        this.entry(entry, out);
      }
    } else if (!this.structured && typeof delta.content === 'string' && delta.content !== '') {
      this.textBeforeStructured += delta.content;
      this.text(delta.content, out);
    }
    if (delta.thought_signature) this.signText(delta.thought_signature);
    for (const call of delta.tool_calls ?? []) {
      this.close(out, 'completed');
      const item: OutputFunctionCallItem = {
        type: 'function_call',
        id: this.newId('fc'),
        call_id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
        status: 'completed',
        ...(call.function.thought_signature ? { thought_signature: call.function.thought_signature } : {}),
      };
      const index = this.output.push(item) - 1;
      out.push(this.event({ type: 'response.output_item.added', output_index: index, item: this.shown({ ...item, arguments: '', status: 'in_progress' }) }));
      out.push(this.event({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: index, delta: item.arguments }));
      out.push(
        this.event({ type: 'response.function_call_arguments.done', item_id: item.id, output_index: index, name: item.name, arguments: item.arguments }),
      );
      out.push(this.event({ type: 'response.output_item.done', output_index: index, item: this.shown(item) }));
    }
  }

  private entry(entry: ContentPartsEntry, out: ResponseStreamEvent[]): void {
    switch (entry.type) {
      case 'text':
        if (entry.text !== '') this.text(entry.text, out);
        if (entry.thought_signature) this.signText(entry.thought_signature);
        break;
      case 'executable_code': {
        this.close(out, 'completed');
        const item: OutputCodeInterpreterCallItem = {
          type: 'code_interpreter_call',
          id: this.newId('ci'),
          code: entry.code,
          container_id: 'gemini-code-execution',
          outputs: null,
          status: 'in_progress',
        };
        const index = this.output.push(item) - 1;
        this.open = { kind: 'code', item, index };
        out.push(this.event({ type: 'response.output_item.added', output_index: index, item: this.shown({ ...item, code: '' }) }));
        out.push(this.event({ type: 'response.code_interpreter_call.in_progress', item_id: item.id, output_index: index }));
        out.push(this.event({ type: 'response.code_interpreter_call_code.delta', item_id: item.id, output_index: index, delta: entry.code }));
        out.push(this.event({ type: 'response.code_interpreter_call_code.done', item_id: item.id, output_index: index, code: entry.code }));
        out.push(this.event({ type: 'response.code_interpreter_call.interpreting', item_id: item.id, output_index: index }));
        break;
      }
      case 'code_execution_result': {
        if (this.open?.kind !== 'code') this.entry({ type: 'executable_code', language: 'python', code: '' }, out);
        const open = this.open as Extract<Open, { kind: 'code' }>;
        open.item.outputs = [...(open.item.outputs ?? []), { type: 'logs', logs: entry.output }];
        if (entry.outcome !== 'OUTCOME_OK') open.item.status = 'failed';
        this.close(out, 'completed');
        break;
      }
      case 'image':
        // Generated images have no item of their own here yet; the text around them still arrives.
        break;
      default: {
        const never: never = entry;
        throw new Error(`unknown content_parts entry ${String(never)}`);
      }
    }
  }

  private reasoning(text: string, signature: string | undefined, out: ResponseStreamEvent[]): void {
    if (this.open?.kind !== 'reasoning') {
      this.close(out, 'completed');
      const item: OutputReasoningItem = { type: 'reasoning', id: this.newId('rs'), summary: [] };
      const index = this.output.push(item) - 1;
      this.open = { kind: 'reasoning', item, index, summaryOpen: false };
      out.push(this.event({ type: 'response.output_item.added', output_index: index, item: this.shown(item) }));
    }
    const open = this.open;
    if (signature) open.item.encrypted_content = signature;
    if (text === '') return;
    if (!open.summaryOpen) {
      open.summaryOpen = true;
      open.item.summary.push({ type: 'summary_text', text: '' });
      out.push(
        this.event({
          type: 'response.reasoning_summary_part.added',
          item_id: open.item.id,
          output_index: open.index,
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        }),
      );
    }
    open.item.summary[0]!.text += text;
    out.push(this.event({ type: 'response.reasoning_summary_text.delta', item_id: open.item.id, output_index: open.index, summary_index: 0, delta: text }));
  }

  private text(text: string, out: ResponseStreamEvent[]): void {
    if (this.open?.kind !== 'message') {
      this.close(out, 'completed');
      const item: OutputMessageItem = { type: 'message', id: this.newId('msg'), status: 'in_progress', role: 'assistant', content: [] };
      const index = this.output.push(item) - 1;
      this.open = { kind: 'message', item, index };
      out.push(this.event({ type: 'response.output_item.added', output_index: index, item: this.shown({ ...item, content: [] }) }));
      item.content.push({ type: 'output_text', text: '', annotations: [], logprobs: [] });
      out.push(
        this.event({
          type: 'response.content_part.added',
          item_id: item.id,
          output_index: index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
        }),
      );
    }
    const open = this.open;
    open.item.content[0]!.text += text;
    out.push(
      this.event({ type: 'response.output_text.delta', item_id: open.item.id, output_index: open.index, content_index: 0, delta: text, logprobs: [] }),
    );
  }

  /** A text answer's signature: on the open message item, else the last one. */
  private signText(signature: string): void {
    const target =
      this.open?.kind === 'message'
        ? this.open.item
        : [...this.output].reverse().find((i): i is OutputMessageItem => i.type === 'message');
    if (target) target.thought_signature = signature;
    else if (this.open?.kind === 'reasoning') this.open.item.encrypted_content ??= signature;
  }

  private close(out: ResponseStreamEvent[], status: 'completed' | 'incomplete'): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    if (open.kind === 'message') {
      const part = open.item.content[0]!;
      part.annotations = groundingAnnotations(part.text, this.grounding);
      part.annotations.forEach((annotation, k) =>
        out.push(
          this.event({
            type: 'response.output_text.annotation.added',
            item_id: open.item.id,
            output_index: open.index,
            content_index: 0,
            annotation_index: k,
            annotation,
          }),
        ),
      );
      out.push(
        this.event({ type: 'response.output_text.done', item_id: open.item.id, output_index: open.index, content_index: 0, text: part.text, logprobs: [] }),
      );
      out.push(this.event({ type: 'response.content_part.done', item_id: open.item.id, output_index: open.index, content_index: 0, part: { ...part } }));
      open.item.status = status;
    } else if (open.kind === 'reasoning') {
      if (open.summaryOpen) {
        const text = open.item.summary[0]!.text;
        out.push(this.event({ type: 'response.reasoning_summary_text.done', item_id: open.item.id, output_index: open.index, summary_index: 0, text }));
        out.push(
          this.event({
            type: 'response.reasoning_summary_part.done',
            item_id: open.item.id,
            output_index: open.index,
            summary_index: 0,
            part: { type: 'summary_text', text },
          }),
        );
      }
    } else {
      if (open.item.status === 'in_progress') open.item.status = 'completed';
      out.push(this.event({ type: 'response.code_interpreter_call.completed', item_id: open.item.id, output_index: open.index }));
    }
    out.push(this.event({ type: 'response.output_item.done', output_index: open.index, item: this.shown(open.item) }));
  }
}

/** A whole chat completion → the Response object, through the same machine as a stream. */
export function completionToResponse(completion: ChatCompletion, options: ResponseBuilderOptions): ResponseObject {
  const builder = new ResponseBuilder(options);
  builder.start();
  const choice = completion.choices.find((c) => c.index === 0) ?? completion.choices[0];
  if (choice) {
    const m = choice.message;
    const delta: ChatCompletionChunkDelta = {
      ...(m.content_blocks ? { content_blocks: m.content_blocks } : {}),
      ...(m.content_parts ? { content_parts: m.content_parts } : m.content != null ? { content: m.content } : {}),
      ...(m.thought_signature ? { thought_signature: m.thought_signature } : {}),
      ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c, index) => ({ ...c, index })) } : {}),
    };
    builder.push({
      id: completion.id,
      object: 'chat.completion.chunk',
      created: completion.created,
      model: completion.model,
      choices: [
        {
          index: 0,
          delta,
          finish_reason: choice.finish_reason,
          logprobs: null,
          ...(choice.groundingMetadata != null ? { groundingMetadata: choice.groundingMetadata } : {}),
        },
      ],
      usage: completion.usage ?? null,
    });
  } else if (completion.usage) {
    builder.push({ id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model, choices: [], usage: completion.usage });
  }
  builder.finish();
  return builder.response();
}
