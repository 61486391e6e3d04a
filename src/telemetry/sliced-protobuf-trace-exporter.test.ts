import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { SlicedProtobufTraceExporter } from './sliced-protobuf-trace-exporter.js';

// Just enough of the protobuf wire format to read OTLP back: (field number, bytes) of each
// length-delimited field of a message; varint and fixed fields are skipped.
function varint(buf: Uint8Array, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = buf[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
    shift += 7;
  }
}
function lengthDelimited(buf: Uint8Array): Array<[number, Uint8Array]> {
  const out: Array<[number, Uint8Array]> = [];
  let at = 0;
  while (at < buf.length) {
    const [key, next] = varint(buf, at);
    at = next;
    const wire = key & 7;
    if (wire === 2) {
      const [length, start] = varint(buf, at);
      out.push([Math.floor(key / 8), buf.subarray(start, start + length)]);
      at = start + length;
    } else if (wire === 0) at = varint(buf, at)[1];
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`wire type ${wire}`);
  }
  return out;
}
const field = (buf: Uint8Array, n: number) => lengthDelimited(buf).filter(([f]) => f === n).map(([, b]) => b);
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

/** opentelemetry-proto trace/v1: ExportTraceServiceRequest.resource_spans(1) → scope_spans(2) → spans(2) → name(5). */
function readRequest(body: Uint8Array) {
  return field(body, 1).map((resourceSpans) => ({
    // resource(1) → attributes(1) → KeyValue key(1), value(2) → string_value(1)
    resource: Object.fromEntries(
      field(field(resourceSpans, 1)[0]!, 1).map((kv) => [text(field(kv, 1)[0]!), text(field(field(kv, 2)[0]!, 1)[0]!)]),
    ),
    names: field(resourceSpans, 2).flatMap((scope) => field(scope, 2).map((span) => text(field(span, 5)[0]!))),
  }));
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A collector answering `status`, or each POST in turn with the next of `statuses` (then 200). */
async function receiver(...statuses: number[]) {
  const bodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      const status = statuses.length > 1 ? (statuses.shift() ?? 200) : (statuses[0] ?? 200);
      res.writeHead(status, { 'content-type': 'application/x-protobuf', 'retry-after': '0' });
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, bodies };
}

function finishedSpans(n: number): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'sliced-test' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('sidegate');
  for (let i = 0; i < n; i++) tracer.startSpan(`span ${i}`, { attributes: { i } }).end();
  return memory.getFinishedSpans();
}

const exportAll = (exporter: SlicedProtobufTraceExporter, spans: ReadableSpan[]) =>
  new Promise<ExportResult>((resolve) => exporter.export(spans, resolve));

describe('SlicedProtobufTraceExporter', () => {
  it('sends a batch in one POST: one ResourceSpans per slice, every span in order, each slice with its resource', async () => {
    const { url, bodies } = await receiver();
    const exporter = new SlicedProtobufTraceExporter({ url }, 8);
    const spans = finishedSpans(20);
    const result = await exportAll(exporter, spans);
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(bodies).toHaveLength(1);
    const request = readRequest(bodies[0]!);
    expect(request.map((r) => r.names.length)).toStrictEqual([8, 8, 4]);
    expect(request.flatMap((r) => r.names)).toStrictEqual(spans.map((s) => s.name));
    for (const r of request) expect(r.resource['service.name']).toBe('sliced-test');
    await exporter.shutdown();
  });

  it('a batch no larger than a slice is the SDK serialiser’s request as it is', async () => {
    const { url, bodies } = await receiver();
    const exporter = new SlicedProtobufTraceExporter({ url }, 8);
    await exportAll(exporter, finishedSpans(3));
    expect(readRequest(bodies[0]!).map((r) => r.names)).toStrictEqual([['span 0', 'span 1', 'span 2']]);
    await exporter.shutdown();
  });

  it('grows its slices to a quarter of the backlog queued behind the batch, never below the slice size', async () => {
    const { url, bodies } = await receiver();
    let backlog = 80;
    const exporter = new SlicedProtobufTraceExporter({ url }, 8, () => backlog);
    const spans = finishedSpans(20);
    await exportAll(exporter, spans);
    expect(readRequest(bodies[0]!).map((r) => r.names.length)).toStrictEqual([20]);
    backlog = 40;
    await exportAll(exporter, spans);
    expect(readRequest(bodies[1]!).map((r) => r.names.length)).toStrictEqual([10, 10]);
    backlog = 31;
    await exportAll(exporter, spans);
    expect(readRequest(bodies[2]!).map((r) => r.names.length)).toStrictEqual([8, 8, 4]);
    expect(readRequest(bodies[2]!).flatMap((r) => r.names)).toStrictEqual(spans.map((s) => s.name));
    await exporter.shutdown();
  });

  it('forceFlush and shutdown wait for a batch still being serialised (the batch processor relies on it at shutdown)', async () => {
    const { url, bodies } = await receiver();
    const exporter = new SlicedProtobufTraceExporter({ url }, 2);
    const results: ExportResult[] = [];
    exporter.export(finishedSpans(10), (r) => results.push(r));
    await exporter.forceFlush();
    expect(bodies).toHaveLength(1);
    expect(results.map((r) => r.code)).toStrictEqual([ExportResultCode.SUCCESS]);
    exporter.export(finishedSpans(10), (r) => results.push(r));
    await exporter.shutdown();
    expect(bodies).toHaveLength(2);
  });

  it('retries a throttled export as the SDK does (Retry-After honoured) and then reports SUCCESS', async () => {
    const { url, bodies } = await receiver(503, 429, 200);
    const exporter = new SlicedProtobufTraceExporter({ url }, 8);
    const result = await exportAll(exporter, finishedSpans(10));
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(bodies).toHaveLength(3);
    expect(bodies[2]).toStrictEqual(bodies[0]);
    await exporter.shutdown();
  });

  it('reports a refused export as FAILED, so the batch is counted as dropped', async () => {
    const { url, bodies } = await receiver(400);
    const exporter = new SlicedProtobufTraceExporter({ url }, 8);
    const result = await exportAll(exporter, finishedSpans(10));
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(bodies).toHaveLength(1);
    await exporter.shutdown();
  });
});
