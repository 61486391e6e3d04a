/**
 * The span export worker's entry (a `worker_threads` Worker started by `WorkerSpanProcessor`):
 * turns the span records posted by the main thread back into `ReadableSpan`s and hands them to
 * the SDK's BatchSpanProcessor and OTLP exporter, so protobuf/JSON serialisation and the HTTP or
 * gRPC export never run on the gateway's event loop. Loads nothing else.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { DropSink } from './drop-reporter.js';
import type { ExportWorkerData, FromExportWorker, ToExportWorker } from './export-worker-protocol.js';
import { createOtlpSpanPipeline } from './otlp-span-pipeline.js';
import { fromSpanRecord, type SpanRecord } from './span-record.js';

const port = parentPort;
if (port === null) throw new Error('span-export-worker.js runs as a worker thread');
const data = workerData as ExportWorkerData;
const post = (message: FromExportWorker) => port.postMessage(message);

const resource = resourceFromAttributes(data.resource.attributes, data.resource.schemaUrl !== undefined ? { schemaUrl: data.resource.schemaUrl } : undefined);
const drops: DropSink = { record: (count, reason) => post({ t: 'drop', count, reason }) };
const { processor, exporter } = createOtlpSpanPipeline(data.traces, data.bsp, drops);
exporter.onExported = (count) => post({ t: 'sent', count });

port.on('message', (message: ToExportWorker) => {
  switch (message.t) {
    case 'json':
      for (const record of JSON.parse(message.json) as SpanRecord[]) processor.onEnd(fromSpanRecord(record, resource));
      return;
    case 'spans':
      for (const record of message.spans) processor.onEnd(fromSpanRecord(record, resource));
      return;
    case 'flush':
      void processor.forceFlush().finally(() => post({ t: 'done', id: message.id }));
      return;
    case 'shutdown':
      // The main thread terminates the worker once this is answered.
      void processor.shutdown().finally(() => post({ t: 'done', id: message.id }));
      return;
  }
});
