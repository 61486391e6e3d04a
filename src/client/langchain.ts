/**
 * `sidegate/langchain`: a LangChain.js callback handler that turns every chain, LLM, chat-model,
 * tool and retriever run into a gateway log (`POST /v1/logs`), so a run of an agent is one trace
 * in the user's OTel backend: `spanId` = the run id, `parentSpanId` = the parent run, `traceId`
 * from `metadata.traceId` or the root run's id (ids are mapped by the gateway exactly as its
 * headers are). Logs are batched off the hot path (log-batcher.ts); nothing here ever throws
 * into the user's chain.
 *
 * When the chat model is `ChatOpenAI` pointed at the gateway with `handler.chatOpenAIConfiguration()`,
 * the handler's `fetch` adds the LLM run's ids as `x-gateway-trace-id` / `x-gateway-parent-span-id`
 * to its request, so the gateway's request and attempt spans hang under the LLM run's span. The
 * request is matched to its run by the text of the last message (runs still waiting for their
 * HTTP call; with one waiting run, that one). Such an LLM run's log carries no usage: the
 * gateway's attempt spans already count it, and summaries must not count it twice.
 *
 * `@langchain/core` is an optional peer dependency: only this entry point imports it.
 */
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { DocumentInterface } from '@langchain/core/documents';
import type { Serialized } from '@langchain/core/load/serializable';
import type { BaseMessage } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import type { ChainValues } from '@langchain/core/utils/types';
import { createHeaders, type SidegateRequestOptions } from './create-headers.js';
import type { SidegateLog } from './gateway-resources.js';
import { createHandlerCore, type SidegateHandlerOptions } from './handler-core.js';
import type { LogBatcher } from './log-batcher.js';

export type SidegateCallbackHandlerOptions = SidegateHandlerOptions;

type RunKind = 'chain' | 'llm' | 'tool' | 'retriever';

interface Run {
  id: string;
  parentId: string | undefined;
  traceId: string;
  kind: RunKind;
  name: string;
  start: number;
  input: unknown;
  /** Text of the last prompt message (to match the HTTP call); LLM runs only. */
  key?: string;
  model?: string;
  viaGateway?: boolean;
}

const MAX_RUNS = 10_000;

export class SidegateCallbackHandler extends BaseCallbackHandler {
  name = 'sidegate';
  /** The wrapped fetch to give ChatOpenAI (via `chatOpenAIConfiguration`). */
  readonly fetch: typeof fetch;
  private readonly runs = new Map<string, Run>();
  private readonly batcher: LogBatcher;
  private readonly metadata: Record<string, string>;
  private readonly traceId: string | undefined;
  private readonly apiKey: string;
  private readonly baseURL: string;

  constructor(options: SidegateCallbackHandlerOptions = {}) {
    // Awaited handlers: a chat model's start is recorded before its HTTP call is made.
    super({ _awaitHandler: true });
    const core = createHandlerCore(options);
    this.apiKey = core.apiKey;
    this.baseURL = core.baseURL;
    this.traceId = core.traceId;
    this.metadata = core.metadata;
    this.batcher = core.batcher;
    const baseFetch = core.baseFetch;
    this.fetch = (input, init) => baseFetch(input, this.withRunHeaders(input, init));
  }

  /**
   * `configuration` for `ChatOpenAI` pointed at the gateway: base URL, gateway headers and the
   * fetch that adds the LLM run's ids. Give the provider key as ChatOpenAI's own `apiKey`.
   */
  chatOpenAIConfiguration(options: Omit<SidegateRequestOptions, 'providerKey'> = {}): {
    baseURL: string;
    defaultHeaders: Record<string, string>;
    fetch: typeof fetch;
  } {
    return { baseURL: this.baseURL, defaultHeaders: createHeaders({ ...options, apiKey: this.apiKey }), fetch: this.fetch };
  }

  /** Sends the logs still queued; resolves when they were sent or dropped. */
  flush(): Promise<void> {
    return this.batcher.flush();
  }

  // The order @langchain/core's CallbackManager calls it with (its typings list runType third).
  override handleChainStart(chain: Serialized, inputs: ChainValues, runId: string, parentRunId?: string, _tags?: string[], _metadata?: Record<string, unknown>, _runType?: string, runName?: string): void {
    this.start(runId, parentRunId, 'chain', runName ?? nameOf(chain), inputs);
  }
  override handleChainEnd(outputs: ChainValues, runId: string): void {
    this.finish(runId, { output: outputs });
  }
  override handleChainError(err: Error, runId: string): void {
    this.finish(runId, undefined, err);
  }

  override handleChatModelStart(llm: Serialized, messages: BaseMessage[][], runId: string, parentRunId?: string, extraParams?: Record<string, unknown>, _tags?: string[], _metadata?: Record<string, unknown>, runName?: string): void {
    const prompt = (messages[0] ?? []).map((m) => ({ role: roleOf(m), content: textOf(m.content) }));
    const run = this.start(runId, parentRunId, 'llm', runName ?? nameOf(llm), prompt);
    run.key = prompt.at(-1)?.content ?? '';
    const model = (extraParams?.invocation_params as { model?: unknown } | undefined)?.model;
    if (typeof model === 'string') run.model = model;
  }
  override handleLLMStart(llm: Serialized, prompts: string[], runId: string, parentRunId?: string, extraParams?: Record<string, unknown>, _tags?: string[], _metadata?: Record<string, unknown>, runName?: string): void {
    const run = this.start(runId, parentRunId, 'llm', runName ?? nameOf(llm), prompts.map((p) => ({ role: 'user', content: p })));
    const model = (extraParams?.invocation_params as { model?: unknown } | undefined)?.model;
    if (typeof model === 'string') run.model = model;
  }
  override handleLLMEnd(output: LLMResult, runId: string): void {
    const run = this.runs.get(runId);
    const text = output.generations?.[0]?.[0]?.text ?? '';
    const usage = output.llmOutput?.tokenUsage as { promptTokens?: number; completionTokens?: number; totalTokens?: number } | undefined;
    this.finish(runId, { text, ...(usage !== undefined && !run?.viaGateway ? { usage } : {}) });
  }
  override handleLLMError(err: Error, runId: string): void {
    this.finish(runId, undefined, err);
  }

  override handleToolStart(tool: Serialized, input: string, runId: string, parentRunId?: string, _tags?: string[], _metadata?: Record<string, unknown>, runName?: string): void {
    this.start(runId, parentRunId, 'tool', runName ?? nameOf(tool), input);
  }
  override handleToolEnd(output: unknown, runId: string): void {
    this.finish(runId, { output: contentOf(output) });
  }
  override handleToolError(err: Error, runId: string): void {
    this.finish(runId, undefined, err);
  }

  override handleRetrieverStart(retriever: Serialized, query: string, runId: string, parentRunId?: string, _tags?: string[], _metadata?: Record<string, unknown>, name?: string): void {
    this.start(runId, parentRunId, 'retriever', name ?? nameOf(retriever), query);
  }
  override handleRetrieverEnd(documents: DocumentInterface[], runId: string): void {
    this.finish(runId, { documents: documents.map((d) => ({ pageContent: d.pageContent, metadata: d.metadata })) });
  }
  override handleRetrieverError(err: Error, runId: string): void {
    this.finish(runId, undefined, err);
  }

  private start(id: string, parentId: string | undefined, kind: RunKind, name: string, input: unknown): Run {
    const parent = parentId === undefined ? undefined : this.runs.get(parentId);
    const run: Run = { id, parentId, traceId: this.traceId ?? parent?.traceId ?? id, kind, name, start: Date.now(), input };
    if (this.runs.size >= MAX_RUNS) this.runs.delete(this.runs.keys().next().value!);
    this.runs.set(id, run);
    return run;
  }

  private finish(id: string, output: Record<string, unknown> | undefined, error?: Error): void {
    const run = this.runs.get(id);
    if (!run) return;
    this.runs.delete(id);
    const end = Date.now();
    this.batcher.add(this.toLog(run, end, output, error));
    // The root run ended: send now rather than waiting for the timer.
    if (run.parentId === undefined || !this.runs.has(run.parentId)) void this.batcher.flush();
  }

  private toLog(run: Run, end: number, output: Record<string, unknown> | undefined, error?: Error): SidegateLog {
    const metadata: SidegateLog['metadata'] = {
      ...this.metadata,
      traceId: run.traceId,
      spanId: run.id,
      spanName: `${run.kind} ${run.name}`,
      'langchain.run_type': run.kind,
    };
    if (run.parentId !== undefined) metadata.parentSpanId = run.parentId;
    const status = error ? 500 : 200;
    let request: SidegateLog['request'] = { method: 'POST', url: `langchain://${run.kind}/${encodeURIComponent(run.name)}`, body: { input: run.input } };
    let responseBody: unknown = error ? { error: { message: error.message, type: error.name } } : output;
    if (run.kind === 'llm' && !run.viaGateway && run.model !== undefined) {
      // Not seen by the gateway: log it as the chat completion it was, so it gets GenAI
      // attributes, usage and cost like an attempt span.
      request = { ...request, body: { model: run.model, messages: run.input } };
      if (!error) {
        const usage = output?.usage as { promptTokens?: number; completionTokens?: number; totalTokens?: number } | undefined;
        responseBody = {
          model: run.model,
          choices: [{ index: 0, message: { role: 'assistant', content: output?.text ?? '' }, finish_reason: 'stop' }],
          ...(usage ? { usage: { prompt_tokens: usage.promptTokens ?? 0, completion_tokens: usage.completionTokens ?? 0, total_tokens: usage.totalTokens ?? 0 } } : {}),
        };
      }
    }
    return { request, response: { status, body: responseBody, response_time: end - run.start }, metadata, created_at: run.start };
  }

  /** Adds the ids of the LLM run this chat-completions request belongs to. */
  private withRunHeaders(input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]): Parameters<typeof fetch>[1] {
    try {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!url.includes('/chat/completions') || typeof init?.body !== 'string') return init;
      const run = this.waitingRunFor(init.body);
      if (!run) return init;
      run.viaGateway = true;
      const headers = new Headers(init.headers);
      headers.set('x-gateway-trace-id', run.traceId);
      headers.set('x-gateway-parent-span-id', run.id);
      return { ...init, headers };
    } catch {
      return init; // tracing never breaks the call
    }
  }

  private waitingRunFor(body: string): Run | undefined {
    const waiting = [...this.runs.values()].filter((r) => r.kind === 'llm' && r.key !== undefined && !r.viaGateway);
    if (waiting.length === 0) return undefined;
    let key: string | undefined;
    try {
      const messages = (JSON.parse(body) as { messages?: Array<{ content?: unknown }> }).messages;
      key = textOf(messages?.at(-1)?.content);
    } catch {
      key = undefined;
    }
    return waiting.find((r) => r.key === key) ?? (waiting.length === 1 ? waiting[0] : undefined);
  }
}

function nameOf(s: Serialized): string {
  const id = (s as { id?: unknown }).id;
  const name = (s as { name?: unknown }).name;
  if (typeof name === 'string') return name;
  return Array.isArray(id) && typeof id.at(-1) === 'string' ? (id.at(-1) as string) : 'run';
}

function roleOf(m: BaseMessage): string {
  const type = m.getType();
  return type === 'human' ? 'user' : type === 'ai' ? 'assistant' : type === 'generic' ? 'user' : type;
}

/** The text of a message content (a string, or the text of its parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p === 'string' ? p : typeof (p as { text?: unknown })?.text === 'string' ? (p as { text: string }).text : '')).join('');
  }
  return '';
}

/** A tool's output: a ToolMessage's content, or the value itself. */
function contentOf(output: unknown): unknown {
  if (output !== null && typeof output === 'object' && 'content' in output) return (output as { content: unknown }).content;
  return output;
}
