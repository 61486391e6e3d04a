/**
 * `sidegate/llamaindex`: LlamaIndex.TS events (query, retrieve, synthesize, LLM) as gateway logs,
 * set globally through `Settings.callbackManager` (`handler.register()`), so a query is one
 * trace: the query is the root span, retrieval, synthesis and LLM calls its children. LlamaIndex
 * events carry no parent ids, so a start event is filed under the innermost open query (or
 * synthesis) of this handler; `metadata.traceId` names the trace (default: the query's own id),
 * which also gathers index-building embedding calls into the same trace.
 *
 * Give `handler.fetch` to the `@llamaindex/openai` LLM and embedding
 * (`additionalSessionOptions: handler.openAISessionOptions()`): chat-completions and embeddings
 * requests then carry `x-gateway-trace-id` / `x-gateway-parent-span-id` (the LLM event's span, or
 * the open query), so the gateway's spans join the tree. Batched off the hot path; never throws
 * into the user's code.
 */
import { randomUUID } from 'node:crypto';
import { Settings } from '@llamaindex/core/global';
import { createHeaders, type SidegateRequestOptions } from './create-headers.js';
import type { SidegateLog } from './gateway-resources.js';
import { createHandlerCore, type SidegateHandlerOptions } from './handler-core.js';
import type { LogBatcher } from './log-batcher.js';

export type SidegateLlamaIndexHandlerOptions = SidegateHandlerOptions;

interface Span {
  id: string;
  parentId: string | undefined;
  traceId: string;
  name: string;
  kind: string;
  start: number;
  input: unknown;
  key?: string;
  viaGateway?: boolean;
}

type Detail = Record<string, unknown>;

export class SidegateLlamaIndexHandler {
  readonly fetch: typeof fetch;
  private readonly batcher: LogBatcher;
  private readonly metadata: Record<string, string>;
  private readonly traceId: string | undefined;
  private readonly apiKey: string;
  private readonly baseURL: string;
  /** Open query/synthesis spans, innermost last. */
  private readonly open: Span[] = [];
  private readonly llms = new Map<string, Span>();
  private readonly listeners: Array<[string, (e: { detail: Detail }) => void]> = [];

  constructor(options: SidegateLlamaIndexHandlerOptions = {}) {
    const core = createHandlerCore(options);
    this.apiKey = core.apiKey;
    this.baseURL = core.baseURL;
    this.traceId = core.traceId;
    this.metadata = core.metadata;
    this.batcher = core.batcher;
    const baseFetch = core.baseFetch;
    this.fetch = (input, init) => baseFetch(input, this.withSpanHeaders(input, init));
  }

  /** `additionalSessionOptions` for `@llamaindex/openai` pointed at the gateway (pass `baseURL` and the provider key as `apiKey` to it). */
  openAISessionOptions(options: Omit<SidegateRequestOptions, 'providerKey'> = {}): { defaultHeaders: Record<string, string>; fetch: typeof fetch } {
    return { defaultHeaders: createHeaders({ ...options, apiKey: this.apiKey }), fetch: this.fetch };
  }

  /** Listens on `Settings.callbackManager` (LlamaIndex's global way). Returns `this`. */
  register(): this {
    const on = (event: string, fn: (detail: Detail) => void) => {
      const listener = (e: { detail: Detail }) => {
        try {
          fn(e.detail);
        } catch {
          // tracing never breaks the user's query
        }
      };
      this.listeners.push([event, listener]);
      (Settings.callbackManager.on as (event: string, handler: (e: { detail: Detail }) => void) => unknown)(event, listener);
    };
    on('query-start', (d) => this.open.push(this.start('query', 'query', d.query)));
    on('query-end', (d) => this.endOpen('query', d.response));
    on('synthesize-start', (d) => this.open.push(this.start('synthesize', 'synthesize', d.query)));
    on('synthesize-end', (d) => this.endOpen('synthesize', d.response));
    on('retrieve-start', (d) => this.open.push(this.start('retrieve', 'retrieve', d.query)));
    on('retrieve-end', (d) => this.endOpen('retrieve', { nodes: (d.nodes as unknown[] | undefined)?.length ?? 0 }));
    on('llm-start', (d) => {
      const messages = (d.messages as Array<{ role?: string; content?: unknown }> | undefined) ?? [];
      const span = this.start('llm', 'llm', messages.map((m) => ({ role: m.role, content: textOf(m.content) })));
      span.key = textOf(messages.at(-1)?.content);
      this.llms.set(String(d.id), span);
    });
    on('llm-end', (d) => {
      const span = this.llms.get(String(d.id));
      if (!span) return;
      this.llms.delete(String(d.id));
      const message = (d.response as { message?: { content?: unknown } } | undefined)?.message;
      this.finish(span, { text: textOf(message?.content) });
    });
    return this;
  }

  /** Stops listening. */
  unregister(): void {
    for (const [event, listener] of this.listeners.splice(0)) {
      (Settings.callbackManager.off as (event: string, handler: (e: { detail: Detail }) => void) => unknown)(event, listener);
    }
  }

  flush(): Promise<void> {
    return this.batcher.flush();
  }

  private start(kind: string, name: string, input: unknown): Span {
    const parent = this.open.at(-1);
    const id = randomUUID();
    return { id, parentId: parent?.id, traceId: this.traceId ?? parent?.traceId ?? id, name, kind, start: Date.now(), input };
  }

  private endOpen(kind: string, output: unknown): void {
    const i = this.open.map((s) => s.kind).lastIndexOf(kind);
    if (i < 0) return;
    const [span] = this.open.splice(i, 1);
    this.finish(span!, { output: typeof output === 'object' && output !== null && 'toString' in output ? String(output) : output });
    if (this.open.length === 0) void this.batcher.flush();
  }

  private finish(span: Span, output: unknown): void {
    const metadata: SidegateLog['metadata'] = { ...this.metadata, traceId: span.traceId, spanId: span.id, spanName: `${span.kind} ${span.name}`.replace(/^(\w+) \1$/, '$1'), 'llamaindex.event': span.kind };
    if (span.parentId !== undefined) metadata.parentSpanId = span.parentId;
    this.batcher.add({
      request: { method: 'POST', url: `llamaindex://${span.kind}`, body: { input: span.input } },
      response: { status: 200, body: output, response_time: Date.now() - span.start },
      metadata,
      created_at: span.start,
    });
  }

  private withSpanHeaders(input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]): Parameters<typeof fetch>[1] {
    try {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const chat = url.includes('/chat/completions');
      if (!chat && !url.includes('/embeddings')) return init;
      let parent: Span | undefined;
      if (chat && typeof init?.body === 'string') {
        const waiting = [...this.llms.values()].filter((s) => !s.viaGateway);
        let key: string | undefined;
        try {
          key = textOf((JSON.parse(init.body) as { messages?: Array<{ content?: unknown }> }).messages?.at(-1)?.content);
        } catch {
          key = undefined;
        }
        parent = waiting.find((s) => s.key === key) ?? (waiting.length === 1 ? waiting[0] : undefined);
        if (parent) parent.viaGateway = true;
      }
      parent ??= this.open.at(-1);
      const traceId = parent?.traceId ?? this.traceId;
      if (traceId === undefined) return init;
      const headers = new Headers(init?.headers);
      headers.set('x-gateway-trace-id', traceId);
      if (parent) headers.set('x-gateway-parent-span-id', parent.id);
      return { ...init, headers };
    } catch {
      return init;
    }
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof (p as { text?: unknown })?.text === 'string' ? (p as { text: string }).text : '')).join('');
  return '';
}
