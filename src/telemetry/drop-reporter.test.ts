import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { CountingExporter, DropReporter, QueueGuard, WARN_INTERVAL_MS } from './drop-reporter.js';

class StuckExporter implements SpanExporter {
  calls: Array<(r: ExportResult) => void> = [];
  export(_spans: ReadableSpan[], cb: (r: ExportResult) => void): void {
    this.calls.push(cb);
  }
  async shutdown(): Promise<void> {}
}

describe('DropReporter', () => {
  it('warns at most once a minute, reporting what was dropped since the last warning', () => {
    let now = 0;
    const warnings: string[] = [];
    const drops = new DropReporter(undefined, (m) => warnings.push(m), () => now);
    drops.record(3, 'export_failed');
    drops.record(2, 'queue_full');
    now = WARN_INTERVAL_MS - 1;
    drops.record(1, 'queue_full');
    now = WARN_INTERVAL_MS;
    drops.record(1, 'queue_full');
    expect(warnings.map((w) => w.slice(0, 20))).toStrictEqual(['dropped 3 span(s) (l', 'dropped 4 span(s) (l']);
    expect(drops.total).toStrictEqual(7);
  });
});

describe('QueueGuard and CountingExporter', () => {
  it('count spans dropped because the queue is full and because export failed', async () => {
    const drops = new DropReporter(undefined, () => {});
    const stuck = new StuckExporter();
    const exporter = new CountingExporter(stuck, drops);
    const batch = new BatchSpanProcessor(exporter, { maxQueueSize: 2, maxExportBatchSize: 2, scheduledDelayMillis: 60_000 });
    const provider = new BasicTracerProvider({ spanProcessors: [new QueueGuard(batch, exporter, 2, drops)] });
    const tracer = provider.getTracer('t');
    // A full batch is exported at once (and sticks); the next two fill the queue; the rest drop.
    for (let i = 0; i < 7; i += 1) tracer.startSpan(`s${i}`).end();
    expect(drops.total).toStrictEqual(3);
    stuck.calls[0]?.({ code: ExportResultCode.FAILED });
    expect(drops.total).toStrictEqual(5);
  });
});
