/**
 * The routing suites' world: Gemini emulator + OpenAI-compatible upstream + the gateway with the
 * real OpenTelemetry SDK exporting into memory, a temp data dir for virtual keys, and the official
 * `openai` SDK as client.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Settings } from '../../../src/config/settings.js';
import { createTelemetry } from '../../../src/telemetry/create-telemetry.js';
import { startHarness, type Harness } from '../harness.js';
import { startOpenAIUpstream, type OpenAIUpstream } from './openai-upstream.js';

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface RoutingHarness extends Harness {
  upstream: OpenAIUpstream;
  exporter: InMemorySpanExporter;
  /** Attempt spans (CLIENT) of one trace, in start order. */
  attempts(traceparent: string | null): ReadableSpan[];
  /** The request span (SERVER) of one trace. */
  requestSpan(traceparent: string | null): ReadableSpan;
  /** Clears both upstreams' queues and records and the recorded spans (between tests). */
  reset(): void;
}

/** `telemetry: 'off'` runs the same world with `OTEL_SDK_DISABLED=true` (no span is recorded). */
export async function startRoutingHarness(settings: Partial<Settings> = {}, options: { telemetry?: 'on' | 'off' } = {}): Promise<RoutingHarness> {
  const exporter = new InMemorySpanExporter();
  const telemetry = createTelemetry({
    env: { OTEL_METRICS_EXPORTER: 'none', ...(options.telemetry === 'off' ? { OTEL_SDK_DISABLED: 'true' } : {}) },
    logger: () => {},
    spanProcessorOverride: new SimpleSpanProcessor(exporter),
  });
  const upstream = await startOpenAIUpstream();
  const dataDir = await mkdtemp(join(tmpdir(), 'sidegate-routing-'));
  const h = await startHarness(
    { openaiBaseUrl: upstream.url, dataDir, adminKey: ADMIN_KEY, customHosts: ['127.0.0.1', 'localhost'], ...settings },
    { telemetry },
  );
  const traceOf = (traceparent: string | null): string => {
    const id = traceparent?.split('-')[1];
    if (!id) throw new Error('response has no traceparent');
    return id;
  };
  const spansOf = (traceparent: string | null) => {
    const id = traceOf(traceparent);
    return exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === id);
  };
  const time = (s: ReadableSpan) => s.startTime[0] * 1e9 + s.startTime[1];
  return {
    ...h,
    upstream,
    exporter,
    attempts: (tp) =>
      spansOf(tp)
        .filter((s) => s.kind === SpanKind.CLIENT)
        .sort((a, b) => time(a) - time(b)),
    requestSpan: (tp) => spansOf(tp).find((s) => s.kind === SpanKind.SERVER)!,
    reset() {
      h.emulator.reset();
      upstream.reset();
      exporter.reset();
    },
    async close() {
      await h.close();
      await upstream.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A Gemini answer with one text part. */
export function geminiText(text: string, model = 'gemini-2.5-flash') {
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 },
    modelVersion: model,
  };
}

/** `x-gateway-config` header value. */
export const config = (value: unknown): Record<string, string> => ({ 'x-gateway-config': JSON.stringify(value) });
