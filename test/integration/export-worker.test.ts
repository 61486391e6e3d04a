/**
 * Span export in a worker thread (`WorkerSpanProcessor` + `span-export-worker.ts`), run as the
 * program runs it: from compiled output (a worker thread cannot start a TypeScript file), built
 * here under .cache/ so it never races the CLI suite's dist/. Spans go to real OTLP/HTTP
 * receivers; what the worker sends is compared with what the main-thread pipeline sends for the
 * very same spans, field by field.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { SpanKind, SpanStatusCode, TraceFlags, context, trace, type Tracer } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as CreateTelemetryModule from '../../src/telemetry/create-telemetry.js';
import type * as DropReporterModule from '../../src/telemetry/drop-reporter.js';
import type * as PipelineModule from '../../src/telemetry/otlp-span-pipeline.js';
import type * as ProcessorModule from '../../src/telemetry/worker-span-processor.js';
import type { OtelConfig, OtlpSignalConfig } from '../../src/telemetry/read-otel-config.js';

const root = new URL('../..', import.meta.url).pathname;
const outDir = `${root}.cache/test-build/export-worker`;
const built = (path: string) => pathToFileURL(`${outDir}/${path}`).href;

let createTelemetry: typeof CreateTelemetryModule.createTelemetry;
let DropReporter: typeof DropReporterModule.DropReporter;
let createOtlpSpanPipeline: typeof PipelineModule.createOtlpSpanPipeline;
let WorkerSpanProcessor: typeof ProcessorModule.WorkerSpanProcessor;
let SPAN_EXPORT_WORKER_URL: URL;
// The SDK classes of the build's own module graph (an `instanceof` must see the same copies).
let sdk: typeof import('@opentelemetry/sdk-trace-base');
let resources: typeof import('@opentelemetry/resources');

beforeAll(async () => {
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: root });
  ({ createTelemetry } = (await import(built('telemetry/create-telemetry.js'))) as typeof CreateTelemetryModule);
  ({ DropReporter } = (await import(built('telemetry/drop-reporter.js'))) as typeof DropReporterModule);
  ({ createOtlpSpanPipeline } = (await import(built('telemetry/otlp-span-pipeline.js'))) as typeof PipelineModule);
  const processorModule = (await import(built('telemetry/worker-span-processor.js'))) as typeof ProcessorModule;
  WorkerSpanProcessor = processorModule.WorkerSpanProcessor;
  SPAN_EXPORT_WORKER_URL = processorModule.SPAN_EXPORT_WORKER_URL!;
  sdk = await import('@opentelemetry/sdk-trace-base');
  resources = await import('@opentelemetry/resources');
}, 180_000);

/** An OTLP/HTTP receiver: records each request's JSON body (http/json) or its bytes (base64); `hold` never answers. */
interface Receiver {
  url: string;
  bodies: unknown[];
  spans(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

async function startReceiver(mode: 'answer' | 'hold' = 'answer'): Promise<Receiver> {
  const bodies: unknown[] = [];
  const held: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (mode === 'hold') {
        held.push(req);
        return;
      }
      const body = Buffer.concat(chunks);
      bodies.push(req.headers['content-type'] === 'application/json' ? JSON.parse(body.toString('utf8')) : { protobuf: body.toString('base64') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    spans: () =>
      (bodies as Array<{ resourceSpans?: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }> }>).flatMap((b) =>
        (b.resourceSpans ?? []).flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
      ),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const signal = (url: string, protocol: OtlpSignalConfig['protocol'] = 'http/json'): OtlpSignalConfig => ({
  protocol,
  url: `${url}/v1/traces`,
  headers: { 'x-test': 'export-worker' },
  timeoutMillis: 10_000,
  compression: 'none',
});
const bsp = (over: Partial<OtelConfig['bsp']> = {}): OtelConfig['bsp'] => ({
  scheduledDelayMillis: 60_000,
  exportTimeoutMillis: 30_000,
  maxQueueSize: 2048,
  maxExportBatchSize: 64,
  ...over,
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
}

/** Spans with every field an exporter reads: kinds, remote parent, trace state, events, links, status, all attribute types. */
function emitSpans(tracer: Tracer): void {
  const remoteParent = trace.setSpanContext(context.active(), {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState('vendor=abc,other=1'),
  });
  const server = tracer.startSpan('chat gemini-2.5-flash', { kind: SpanKind.SERVER, attributes: { 'gen_ai.operation.name': 'chat' } }, remoteParent);
  server.setAttributes({ 'gateway.attempts': 2, 'gateway.cost.usd': 0.000125, 'gen_ai.response.finish_reasons': ['stop', 'length'], 'gateway.flag': true, 'gateway.empty': '' });
  server.addEvent('gen_ai.client.inference.operation.details', { 'gen_ai.input.messages': '[{"role":"user"}]', count: 3 });
  const child = tracer.startSpan(
    'generate_content gemini-2.5-flash',
    {
      kind: SpanKind.CLIENT,
      links: [
        {
          context: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED, traceState: new TraceState('k=v') },
          attributes: { 'gateway.link': 'first holder' },
        },
      ],
    },
    trace.setSpan(context.active(), server),
  );
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream 503' });
  child.recordException(new Error('overloaded'));
  child.end();
  server.setStatus({ code: SpanStatusCode.OK });
  server.end();
  // Unsampled: never exported, on either path.
  const unsampled = trace.setSpanContext(context.active(), { traceId: '5bf92f3577b34da6a3ce929d0e0e4736', spanId: '10f067aa0ba902b7', traceFlags: TraceFlags.NONE, isRemote: true });
  tracer.startSpan('not sampled', {}, unsampled).end();
}

const bySpanId = (spans: Array<Record<string, unknown>>) => [...spans].sort((a, b) => String(a.spanId).localeCompare(String(b.spanId)));

describe('span export worker', () => {
  it('sends exactly what the main-thread exporter sends: ids, times, attributes, events, links, status, resource', async () => {
    const viaWorker = await startReceiver();
    const viaMain = await startReceiver();
    const drops = new DropReporter(undefined, () => {});
    const resource = resources.resourceFromAttributes({ 'service.name': 'export-worker-test', 'service.version': '1.2.3', 'deployment.environment.name': 'test' });
    const warnings: string[] = [];
    const worker = new WorkerSpanProcessor({
      workerUrl: SPAN_EXPORT_WORKER_URL,
      data: { traces: signal(viaWorker.url), bsp: bsp(), resource: { attributes: resource.attributes } },
      drops,
      warn: (m) => warnings.push(m),
      fallback: () => {
        throw new Error('the worker should not be lost');
      },
    });
    const main = createOtlpSpanPipeline(signal(viaMain.url), bsp(), drops).processor;
    const provider = new sdk.BasicTracerProvider({ resource, spanProcessors: [worker, main] });
    emitSpans(provider.getTracer('sidegate', '0.1.0'));
    await provider.forceFlush();

    const fromWorker = bySpanId(viaWorker.spans());
    expect(fromWorker).toHaveLength(2);
    expect(fromWorker).toStrictEqual(bySpanId(viaMain.spans()));
    const client = fromWorker.find((s) => s.kind === 3)!;
    expect(client.links).toStrictEqual([
      expect.objectContaining({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceState: 'k=v' }),
    ]);
    const server = fromWorker.find((s) => s.kind === 2)!;
    expect(server).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentSpanId: '00f067aa0ba902b7', traceState: 'vendor=abc,other=1' });
    // Resource and scope are grouped the same way, once per request.
    const envelope = (b: unknown) => {
      const rs = (b as { resourceSpans: Array<{ resource: unknown; scopeSpans: Array<{ scope: unknown }> }> }).resourceSpans;
      return rs.map((r) => ({ resource: r.resource, scopes: r.scopeSpans.map((s) => s.scope) }));
    };
    expect(viaWorker.bodies.map(envelope)).toStrictEqual(viaMain.bodies.map(envelope));
    expect(JSON.stringify(viaWorker.bodies[0])).toContain('export-worker-test');
    expect(drops.total).toBe(0);
    expect(worker.onMainThread).toBe(false);
    expect(warnings).toStrictEqual([]);
    await provider.shutdown();
    await Promise.all([viaWorker.close(), viaMain.close()]);
  });

  it('keeps values JSON cannot carry (NaN, infinities, empty array items): the same protobuf bytes as the main thread', async () => {
    const viaWorker = await startReceiver();
    const viaMain = await startReceiver();
    const drops = new DropReporter(undefined, () => {});
    const resource = resources.resourceFromAttributes({ 'service.name': 'export-worker-test' });
    const worker = new WorkerSpanProcessor({
      workerUrl: SPAN_EXPORT_WORKER_URL,
      data: { traces: signal(viaWorker.url, 'http/protobuf'), bsp: bsp(), resource: { attributes: resource.attributes } },
      drops,
      warn: () => {},
      fallback: () => {
        throw new Error('the worker should not be lost');
      },
    });
    const main = createOtlpSpanPipeline(signal(viaMain.url, 'http/protobuf'), bsp(), drops).processor;
    const provider = new sdk.BasicTracerProvider({ resource, spanProcessors: [worker, main] });
    const tracer = provider.getTracer('sidegate');
    // A plain group first (it crosses as JSON), then one with the odd values (by structured clone).
    tracer.startSpan('plain', { attributes: { a: 'x', n: 2 } }).end();
    await provider.forceFlush();
    const odd = { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, minf: Number.NEGATIVE_INFINITY, holes: ['a', null, undefined, 'b'] as string[] };
    tracer.startSpan('odd values', { attributes: odd }).addEvent('odd event', odd).end();
    await provider.forceFlush();
    expect(viaWorker.bodies).toHaveLength(2);
    expect(viaWorker.bodies).toStrictEqual(viaMain.bodies);
    await provider.shutdown();
    await Promise.all([viaWorker.close(), viaMain.close()]);
  });

  it('with SIDEGATE_OTLP_WORKER=true, exports through the worker with the default protocol (http/protobuf) and flushes what is queued on shutdown', async () => {
    const receiver = await startReceiver();
    const lines: string[] = [];
    // A schedule delay far beyond the test: only shutdown's flush can deliver these spans.
    const telemetry = createTelemetry({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '600000', OTEL_METRICS_EXPORTER: 'none', SIDEGATE_OTLP_WORKER: 'true' },
      logger: (line) => lines.push(line),
    });
    for (let i = 0; i < 100; i++) {
      const span = telemetry.startRequest({
        context: { trace: { traceId: (i + 1).toString(16).padStart(32, '0'), spanId: (i + 1).toString(16).padStart(16, '0'), traceFlags: 1 }, metadata: {} },
        operation: 'chat',
        model: 'gemini-2.5-flash',
        route: '/v1/chat/completions',
        chat: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] },
      });
      span.end({ status: 200, attempts: 0 });
    }
    await telemetry.shutdown(10_000);
    // 100 spans in batches of 64.
    expect(receiver.bodies).toHaveLength(2);
    expect(telemetry.droppedSpans()).toBe(0);
    expect(lines).toStrictEqual([]);
    await receiver.close();
  });

  it('starts the worker only with SIDEGATE_OTLP_WORKER=true (shown by one whose entry is missing)', async () => {
    const receiver = await startReceiver();
    const missing = pathToFileURL(`${outDir}/telemetry/no-such-worker.js`);
    for (const setting of ['true', 'false', undefined]) {
      const lines: string[] = [];
      const env: Record<string, string> = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRICS_EXPORTER: 'none' };
      if (setting !== undefined) env.SIDEGATE_OTLP_WORKER = setting;
      const telemetry = createTelemetry({ env, logger: (line) => lines.push(line), exportWorkerUrl: missing });
      const span = telemetry.startRequest({
        context: { trace: { traceId: '0123456789abcdef0123456789abcdef', spanId: '0123456789abcdef', traceFlags: 1 }, metadata: {} },
        operation: 'chat',
        model: 'm',
        route: '/v1/chat/completions',
        chat: { model: 'm', messages: [] },
      });
      span.end({ status: 200, attempts: 0 });
      await telemetry.shutdown(10_000);
      expect(lines.some((l) => l.includes('span export worker stopped'))).toBe(setting === 'true');
      // The span went to the worker before it was found missing: lost, and counted.
      expect(telemetry.droppedSpans()).toBe(setting === 'true' ? 1 : 0);
    }
    // The other two arrived from the main thread (one protobuf request each).
    expect(receiver.bodies).toHaveLength(2);
    await receiver.close();
  });

  it('counts spans dropped on a full queue in the worker, and accounts for every span', async () => {
    const receiver = await startReceiver('hold');
    const drops = new DropReporter(undefined, () => {});
    const resource = resources.resourceFromAttributes({ 'service.name': 'export-worker-test' });
    const worker = new WorkerSpanProcessor({
      workerUrl: SPAN_EXPORT_WORKER_URL,
      // The collector never answers: one batch of 10 is in flight, 10 wait in the queue, the rest are dropped.
      data: {
        traces: { ...signal(receiver.url), timeoutMillis: 1000 },
        bsp: bsp({ maxQueueSize: 10, scheduledDelayMillis: 0 }),
        resource: { attributes: resource.attributes },
      },
      drops,
      warn: () => {},
      fallback: () => {
        throw new Error('the worker should not be lost');
      },
    });
    const provider = new sdk.BasicTracerProvider({ resource, spanProcessors: [worker] });
    const tracer = provider.getTracer('sidegate');
    for (let i = 0; i < 100; i++) tracer.startSpan(`span ${i}`).end();
    await waitFor(() => drops.total >= 80);
    expect(drops.total).toBe(80);
    await receiver.close();
    await provider.shutdown();
  });

  it('reports a worker that cannot start once and exports on the main thread instead', async () => {
    const receiver = await startReceiver();
    const drops = new DropReporter(undefined, () => {});
    const warnings: string[] = [];
    const worker = new WorkerSpanProcessor({
      workerUrl: pathToFileURL(`${outDir}/telemetry/no-such-worker.js`),
      data: { traces: signal(receiver.url), bsp: bsp(), resource: { attributes: {} } },
      drops,
      warn: (m) => warnings.push(m),
      fallback: () => createOtlpSpanPipeline(signal(receiver.url), bsp(), drops).processor,
    });
    const provider = new sdk.BasicTracerProvider({ spanProcessors: [worker] });
    const tracer = provider.getTracer('sidegate');
    await waitFor(() => worker.onMainThread);
    for (let i = 0; i < 5; i++) tracer.startSpan(`span ${i}`).end();
    await provider.forceFlush();
    expect(receiver.spans()).toHaveLength(5);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^span export worker stopped \(.*no-such-worker.*\); exporting spans on the main thread from now on$/);
    expect(drops.total).toBe(0);
    await provider.shutdown();
    await receiver.close();
  });

  it('counts the spans a dying worker held, then exports the next ones on the main thread', async () => {
    const receiver = await startReceiver();
    const dying = `${outDir}/dying-worker.mjs`;
    mkdirSync(outDir, { recursive: true });
    // Takes the first group of spans, then exits as a crashed worker would.
    writeFileSync(dying, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => process.exit(3));\n");
    const drops = new DropReporter(undefined, () => {});
    const warnings: string[] = [];
    const worker = new WorkerSpanProcessor({
      workerUrl: pathToFileURL(dying),
      data: { traces: signal(receiver.url), bsp: bsp(), resource: { attributes: {} } },
      drops,
      warn: (m) => warnings.push(m),
      fallback: () => createOtlpSpanPipeline(signal(receiver.url), bsp(), drops).processor,
      postEvery: 3,
    });
    const provider = new sdk.BasicTracerProvider({ spanProcessors: [worker] });
    const tracer = provider.getTracer('sidegate');
    for (let i = 0; i < 3; i++) tracer.startSpan(`lost ${i}`).end();
    await waitFor(() => worker.onMainThread);
    for (let i = 0; i < 4; i++) tracer.startSpan(`kept ${i}`).end();
    await provider.forceFlush();
    expect(drops.total).toBe(3);
    expect(receiver.spans().map((s) => s.name)).toStrictEqual(['kept 0', 'kept 1', 'kept 2', 'kept 3']);
    expect(warnings).toStrictEqual(['span export worker stopped (exited with code 3); exporting spans on the main thread from now on']);
    await provider.shutdown();
    await receiver.close();
  });

  it('never keeps the process alive: a program that exports spans and does not shut down exits on its own', async () => {
    const receiver = await startReceiver();
    const program = `
      const { createTelemetry } = await import(${JSON.stringify(built('telemetry/create-telemetry.js'))});
      const telemetry = createTelemetry({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: ${JSON.stringify(receiver.url)}, OTEL_METRICS_EXPORTER: 'none', SIDEGATE_OTLP_WORKER: 'true' } });
      const span = telemetry.startRequest({ context: { trace: { traceId: '0123456789abcdef0123456789abcdef', spanId: '0123456789abcdef', traceFlags: 1 }, metadata: {} }, operation: 'chat', model: 'm', route: '/v1/chat/completions', chat: { model: 'm', messages: [] } });
      span.end({ status: 200, attempts: 0 });
      await telemetry.forceFlush();
      process.stdout.write('flushed');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', program], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(stdout).toBe('flushed');
    expect(receiver.bodies).toHaveLength(1);
    await receiver.close();
  });
});
