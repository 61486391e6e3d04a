import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { DropReporter } from './drop-reporter.js';
import { createOtlpSpanPipeline } from './otlp-span-pipeline.js';

// The collector in a process of its own, as in production: it answers while this one is busy.
const RECEIVER = `
  const server = require('node:http').createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

let receiver: ChildProcess | undefined;
afterEach(() => {
  receiver?.kill();
  receiver = undefined;
});

async function startReceiver(): Promise<string> {
  receiver = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(receiver.stdout!, 'data')) as [Buffer];
  return `http://127.0.0.1:${String(port).trim()}/v1/traces`;
}

/** Holds the event loop like a turn that serves many requests does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('createOtlpSpanPipeline (the default: BatchSpanProcessor, sliced protobuf exporter)', () => {
  it('keeps up when each turn of a saturated event loop ends more spans than a slice holds: none dropped', async () => {
    const url = await startReceiver();
    const drops = new DropReporter(undefined, () => {});
    const pipeline = createOtlpSpanPipeline(
      { protocol: 'http/protobuf', url, headers: {}, timeoutMillis: 10_000, compression: 'none' },
      { scheduledDelayMillis: 5000, exportTimeoutMillis: 30_000, maxQueueSize: 2048, maxExportBatchSize: 64 },
      drops,
    );
    let exported = 0;
    pipeline.exporter.onExported = (count) => (exported += count);
    const tracer = new BasicTracerProvider({ spanProcessors: [pipeline.processor] }).getTracer('t');
    // 600 turns of 2 ms, 16 spans each: twice what fixed slices of 8 (one slice a turn) export.
    // With those the queue fills, spans are dropped and the last flush is refused.
    for (let turn = 0; turn < 600; turn += 1) {
      for (let i = 0; i < 16; i += 1) tracer.startSpan(`span ${turn}.${i}`).end();
      busy(2);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await pipeline.processor.forceFlush();
    expect(drops.total).toBe(0);
    expect(exported).toBe(9600);
    await pipeline.processor.shutdown();
  });
});
