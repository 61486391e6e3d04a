// Where span export's CPU lands: the gateway's main thread (its event loop) or the export worker.
// Same workload as components.mjs's `telemetry` row (request + attempt span and their metrics per
// iteration, exported over OTLP/HTTP protobuf to a live receiver in another process), in three
// configurations, interleaved over --rounds so each sees the same machine:
//   worker       SIDEGATE_OTLP_WORKER=true: export in the worker thread
//   main         the default: BatchSpanProcessor and exporter on the main thread
//   spans_only   OTEL_TRACES_EXPORTER=none: no span processor, the cost of building spans
// Per request: CPU of the main thread (/proc/self/task/<pid>/schedstat, ns on CPU), of the worker
// thread (the thread that appears with the worker) and of the whole process (process.cpuUsage,
// every thread, V8's GC and compiler threads included), median over the rounds. "pause" is how
// long export holds the event loop in one go: each synchronous export call on the main thread
// (serialising a batch and starting its POST), or each hand-over of a group of spans to the
// worker (copying them into a message); p50, p99 and max over every batch of the run, in ms of
// wall time, so on a busy machine the tail includes time the thread was preempted (with the
// worker on, by its own worker too when both want a core).
//   node bench/export-thread.mjs [--iterations 20000] [--rounds 3] [--pause 10] [--only worker,main]
//                                [--env "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=512 …"]   (for every configuration)
// Needs `npm run build` first.
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { start, round, sleep } from './processes.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const N = Number(option('iterations', 20000));
const ROUNDS = Number(option('rounds', 3));
// A pause after every 64 requests: 10 ms is about 6,000 req/s, which the default queue (2,048)
// and batch size keep up with, so no span is dropped and every one is serialised and sent.
const PAUSE_MS = Number(option('pause', 10));
const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const { createTelemetry } = await dist('telemetry/create-telemetry.js');
const { parseChatRequest } = await dist('openai/parse-chat-request.js');
const { CountingExporter } = await dist('telemetry/drop-reporter.js');
const { WorkerSpanProcessor } = await dist('telemetry/worker-span-processor.js');
const chat = parseChatRequest({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 });

// Export's pauses: timed around the calls that run it on the main thread. Only calls that did
// more than push a span onto a buffer (≥ 20 µs) are kept.
let pauses = [];
function timed(proto, name) {
  const original = proto[name];
  proto[name] = function (...a) {
    const t = performance.now();
    const result = original.apply(this, a);
    const ms = performance.now() - t;
    if (ms >= 0.02) pauses.push(ms);
    return result;
  };
}
timed(CountingExporter.prototype, 'export');
timed(WorkerSpanProcessor.prototype, 'onEnd');

/** ns on CPU per thread of this process, by thread id. */
const threadNs = () =>
  Object.fromEntries(
    readdirSync(`/proc/${process.pid}/task`).map((tid) => {
      try {
        return [tid, Number(readFileSync(`/proc/${process.pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])];
      } catch {
        return [tid, 0];
      }
    }),
  );
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quantile = (xs, q) => (xs.length === 0 ? 0 : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]);

function once(telemetry, i) {
  const trace = { traceId: (i + 1).toString(16).padStart(32, '0'), spanId: (i + 1).toString(16).padStart(16, '0'), traceFlags: 1 };
  const span = telemetry.startRequest({ context: { trace, metadata: {} }, operation: 'chat', model: 'gemini-2.5-flash', route: '/v1/chat/completions', chat });
  const attempt = span.startAttempt({ providerName: 'gcp.gemini', operationName: 'generate_content', model: 'gemini-2.5-flash', baseUrl: 'http://127.0.0.1:8788', attemptNumber: 1, targetIndex: 'default', resendCount: 0 });
  attempt.traceHeaders();
  const outcome = { responseId: 'r', responseModel: 'gemini-2.5-flash', finishReasons: ['stop'], usage: { inputTokens: 7, outputTokens: 9, reasoningTokens: 0, cachedInputTokens: 0 }, warnings: [] };
  attempt.end({ status: 200, outcome });
  span.sampled();
  span.end({ status: 200, outcome, attempts: 1, finalTarget: 'default' });
}

async function measure(env) {
  const existing = new Set(readdirSync(`/proc/${process.pid}/task`));
  const telemetry = createTelemetry({ env, logger: () => {} });
  for (let i = 0; i < 2000; i++) {
    once(telemetry, i);
    if (i % 64 === 63) await sleep(PAUSE_MS);
  }
  await sleep(500);
  // The worker's thread: the one that appeared with this telemetry and works the hardest.
  const fresh = () => Object.entries(threadNs()).filter(([tid]) => !existing.has(tid));
  const dropped = telemetry.droppedSpans();
  const before = threadNs();
  const cpu = process.cpuUsage();
  pauses = [];
  for (let i = 0; i < N; i++) {
    once(telemetry, i);
    if (i % 64 === 63) await sleep(PAUSE_MS);
  }
  await sleep(1500); // the last batches go out; their CPU counts
  const all = process.cpuUsage(cpu);
  const after = threadNs();
  const workerNs = Math.max(0, ...fresh().map(([tid, ns]) => ns - (before[tid] ?? 0)));
  const result = {
    main: (after[process.pid] - before[process.pid]) / 1000 / N,
    worker: workerNs / 1000 / N,
    process: (all.user + all.system) / N,
    pause_p50_ms: quantile(pauses, 0.5),
    pause_p99_ms: quantile(pauses, 0.99),
    pause_max_ms: Math.max(0, ...pauses),
    dropped: telemetry.droppedSpans() - dropped,
  };
  await telemetry.shutdown(2000);
  return result;
}

const sink = await start('child.mjs', ['sink']);
const extraEnv = Object.fromEntries((option('env', '') ?? '').split(' ').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const base = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'sidegate-bench', OTEL_METRIC_EXPORT_INTERVAL: '60000', ...extraEnv };
const all = { worker: { ...base, SIDEGATE_OTLP_WORKER: 'true' }, main: base, spans_only: { ...base, OTEL_TRACES_EXPORTER: 'none' } };
const only = option('only', Object.keys(all).join(',')).split(',');
const configs = Object.fromEntries(Object.entries(all).filter(([k]) => only.includes(k)));
const runs = Object.fromEntries(Object.keys(configs).map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) for (const [name, env] of Object.entries(configs)) runs[name].push(await measure(env));
sink.child.kill('SIGTERM');
console.log(`CPU µs per request, ${N} iterations, median of ${ROUNDS} interleaved rounds; export pauses on the event loop in ms`);
console.log(`${'config'.padEnd(12)} ${'main thread'.padStart(11)} ${'worker'.padStart(7)} ${'process'.padStart(8)} ${'pause p50'.padStart(10)} ${'pause p99'.padStart(10)} ${'pause max'.padStart(10)}  dropped`);
const out = {};
for (const [name, list] of Object.entries(runs)) {
  const m = (k, d = 1) => round(median(list.map((x) => x[k])), d);
  out[name] = { main: m('main'), worker: m('worker'), process: m('process'), pause_p50_ms: m('pause_p50_ms', 2), pause_p99_ms: m('pause_p99_ms', 2), pause_max_ms: m('pause_max_ms', 2), dropped: list.reduce((s, x) => s + x.dropped, 0) };
  const o = out[name];
  console.log(`${name.padEnd(12)} ${String(o.main).padStart(11)} ${String(o.worker).padStart(7)} ${String(o.process).padStart(8)} ${String(o.pause_p50_ms).padStart(10)} ${String(o.pause_p99_ms).padStart(10)} ${String(o.pause_max_ms).padStart(10)}  ${o.dropped}`);
}
console.log(JSON.stringify(out));
