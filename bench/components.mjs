// CPU per request of the pieces of sidegate's request path, each alone in this process, timed with
// process.cpuUsage (CPU time of every thread, so time the scheduler gives to other processes does
// not count, which makes these figures steadier than end-to-end ones on a busy machine):
//   validation   the public request schema (zod) on the bench's body
//   translation  OpenAI → Gemini body and the emulator's answer → chat.completion
//   telemetry    request span + attempt span + their metrics, exported over OTLP/HTTP protobuf to
//                a live receiver (another process), as the gateway does per request
//   spans only   the same with no span processor (OTEL_TRACES_EXPORTER=none): export's share is the
//                difference
//   floor        floor.mjs's translation, for scale
//   node:http + undici is not here: the floor's end-to-end CPU per request is that part.
//   node bench/components.mjs [--iterations 20000] [--env "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=512 …"]
// Needs `npm run build` first. BENCH_DIST names another build to measure (as child.mjs reads it), so
// two commits can be compared by alternating runs.
import { pathToFileURL } from 'node:url';
import { start, round, sleep } from './processes.mjs';

const args = process.argv.slice(2);
const N = Number(args[args.indexOf('--iterations') + 1] || 20000);
const extraEnv = args.includes('--env')
  ? Object.fromEntries(args[args.indexOf('--env') + 1].split(' ').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]))
  : {};
const dist = process.env.BENCH_DIST ? pathToFileURL(`${process.env.BENCH_DIST.replace(/\/+$/, '')}/`) : new URL('../dist/', import.meta.url);
const load = (p) => import(new URL(p, dist).href);

const { parseChatRequest } = await load('openai/parse-chat-request.js');
const { convertRequest } = await load('providers/gemini/convert-request.js');
const { convertResponse } = await load('providers/gemini/convert-response.js');
const { createTelemetry } = await load('telemetry/create-telemetry.js');

const body = JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 });
const answer = JSON.stringify(
  {
    candidates: [{ content: { parts: [{ text: 'Echo: Say hello to the benchmark.' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 9, totalTokenCount: 16 },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'emu0000000000000000001',
  },
  null,
  2,
);
const target = { provider: 'google', apiKey: 'k', baseUrl: 'http://127.0.0.1:8788', strictCompliance: true, timeoutMs: 60000 };
const request = parseChatRequest(JSON.parse(body));

/** CPU µs per call of `fn`, yielding to the event loop every 64 calls (so batch export can run). */
async function cpuPer(fn) {
  for (let i = 0; i < 2000; i++) {
    fn(i);
    if (i % 64 === 63) await sleep(0);
  }
  const before = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    fn(i);
    if (i % 64 === 63) await sleep(0);
  }
  await sleep(1500); // let the last batches go out (their CPU is the gateway's too)
  const after = process.cpuUsage(before);
  return round((after.user + after.system) / N, 1);
}

function telemetryOnce(telemetry) {
  return (i) => {
    const trace = { traceId: (i + 1).toString(16).padStart(32, '0'), spanId: (i + 1).toString(16).padStart(16, '0'), traceFlags: 1 };
    const span = telemetry.startRequest({ context: { trace, metadata: {} }, operation: 'chat', model: 'gemini-2.5-flash', route: '/v1/chat/completions', chat: request });
    const attempt = span.startAttempt({ providerName: 'gcp.gemini', operationName: 'generate_content', model: 'gemini-2.5-flash', baseUrl: target.baseUrl, attemptNumber: 1, targetIndex: 'default', resendCount: 0 });
    attempt.traceHeaders();
    attempt.requestWritten?.(0.1);
    const outcome = { responseId: 'r', responseModel: 'gemini-2.5-flash', finishReasons: ['stop'], usage: { inputTokens: 7, outputTokens: 9, reasoningTokens: 0, cachedInputTokens: 0 }, warnings: [] };
    attempt.end({ status: 200, outcome });
    span.sampled();
    span.end({ status: 200, outcome, attempts: 1, finalTarget: 'default' });
  };
}

const sink = await start('child.mjs', ['sink']);
const env = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'sidegate-bench', OTEL_METRIC_EXPORT_INTERVAL: '60000', ...extraEnv };
const results = {};
results.validation = await cpuPer(() => parseChatRequest(JSON.parse(body)));
results.translation = await cpuPer(() => {
  convertRequest(request, target, { media: new Map() }).body;
  JSON.stringify(convertResponse(JSON.parse(answer), { model: request.model, strictCompliance: true, warnings: [] }).completion);
});
const on = createTelemetry({ env, logger: () => {} });
results.telemetry = await cpuPer(telemetryOnce(on));
await on.shutdown(2000);
const spansOnly = createTelemetry({ env: { ...env, OTEL_TRACES_EXPORTER: 'none' }, logger: () => {} });
results.spans_only = await cpuPer(telemetryOnce(spansOnly));
await spansOnly.shutdown(2000);
results.export = round(results.telemetry - results.spans_only, 1);
results.floor_translation = await cpuPer(() => {
  const req = JSON.parse(body);
  JSON.stringify({ contents: req.messages.map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] })), generationConfig: { maxOutputTokens: req.max_tokens } });
  const g = JSON.parse(answer);
  JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: req.model, choices: [{ index: 0, message: { role: 'assistant', content: g.candidates[0].content.parts[0].text }, finish_reason: 'stop' }], usage: { prompt_tokens: 7, completion_tokens: 9, total_tokens: 16 } });
});
sink.child.kill('SIGTERM');
console.log(`CPU µs per request, ${N} iterations each (process.cpuUsage, all threads)`);
for (const [k, v] of Object.entries(results)) console.log(`${k.padEnd(18)} ${String(v).padStart(7)}`);
console.log(JSON.stringify(results));
