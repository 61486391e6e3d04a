// What two OpenTelemetry SDK calls on sidegate's request path cost, in loops (process.cpuUsage, µs
// per call, three rounds of each arm in turn), for the choices docs/performance.md records:
//   span attributes   passed to startSpan (sanitised twice by the tracer, then checked again by
//                     the span) against set with setAttributes after start (checked once)
//   histogram record  by the number of attributes, and with a new attribute object each time
//                     against the same object (the metrics SDK hashes the set by content on every
//                     record, so a cache handing it the same object would not help)
//   node bench/otel-sdk-costs.mjs [--iterations 300000]
import { SpanKind } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';

const args = process.argv.slice(2);
const N = Number(args[args.indexOf('--iterations') + 1] || 300_000);

const tracer = new BasicTracerProvider().getTracer('bench');
const spanAttributes = () => ({
  'gen_ai.operation.name': 'chat',
  'gen_ai.request.model': 'gemini-2.5-flash',
  'http.request.method': 'POST',
  'http.route': '/v1/chat/completions',
  'gen_ai.provider.name': 'gcp.gemini',
  'sidegate.attempt.number': 1,
  'server.address': '127.0.0.1',
  'server.port': 8788,
});

const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 });
const histogram = new MeterProvider({ readers: [reader] })
  .getMeter('bench')
  .createHistogram('h', { advice: { explicitBucketBoundaries: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92] } });
const seven = () => ({
  'gen_ai.operation.name': 'generate_content',
  'gen_ai.provider.name': 'gcp.gemini',
  'gen_ai.request.model': 'gemini-2.5-flash',
  'gen_ai.response.model': 'gemini-2.5-flash',
  'server.address': '127.0.0.1',
  'server.port': 8788,
  'gen_ai.token.type': 'input',
});
const same = seven();
const four = () => ({ 'gen_ai.operation.name': 'generate_content', 'gen_ai.provider.name': 'gcp.gemini', 'gen_ai.request.model': 'gemini-2.5-flash', 'gen_ai.token.type': 'input' });
const one = () => ({ 'gen_ai.provider.name': 'gcp.gemini' });

const arms = {
  'span, 8 attributes passed to startSpan': () => tracer.startSpan('chat m', { kind: SpanKind.SERVER, attributes: spanAttributes() }).end(),
  'span, 8 attributes set after start': () => {
    const span = tracer.startSpan('chat m', { kind: SpanKind.SERVER });
    span.setAttributes(spanAttributes());
    span.end();
  },
  'record, 7 attributes, a new object': () => histogram.record(0.05, seven()),
  'record, 7 attributes, the same object': () => histogram.record(0.05, same),
  'record, 4 attributes': () => histogram.record(0.05, four()),
  'record, 1 attribute': () => histogram.record(0.05, one()),
};

const results = Object.fromEntries(Object.keys(arms).map((k) => [k, []]));
for (let round = 0; round < 3; round++) {
  for (const [name, fn] of Object.entries(arms)) {
    for (let i = 0; i < 20_000; i++) fn();
    const before = process.cpuUsage();
    for (let i = 0; i < N; i++) fn();
    const used = process.cpuUsage(before);
    results[name].push(Math.round(((used.user + used.system) / N) * 1000) / 1000);
  }
}
console.log(`µs per call, ${N} calls, three rounds`);
for (const [name, figures] of Object.entries(results)) console.log(`${name.padEnd(40)} ${figures.join('  ')}`);
