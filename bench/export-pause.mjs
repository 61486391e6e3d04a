// How long span export holds the event loop, and what it costs, per export configuration: each arm
// runs the `telemetry` piece of components.mjs (a request span, an attempt span, their metrics,
// exported over OTLP/HTTP protobuf to a live receiver in another process) once per macrotask, back
// to back, in its own fresh process, arms alternating over rounds. Between two requests the event
// loop runs whatever else is due: the spans' deferred work (off-path.ts), the batch processor's
// export when a batch fills (serialisation and POST) and I/O. The figures are the gap between the
// start of one request's macrotask and the next one's, in wall time (its p50 is the ordinary turn,
// its p99 and max the pauses a request waits behind; on a busy machine preemption is in it too) and
// in the process's CPU time (process.cpuUsage, all threads: what the process itself did between
// two requests, which other processes on the machine do not move). CPU per request likewise.
//   node bench/export-pause.mjs [--iterations 30000] [--rounds 3] [--rate 2000 (requests per second)]
//        [--arm "name=ENV=value ENV2=value"]...   (default arms: batch 64, the shipped settings)
//   BENCH_DIST=DIR measures another build.
// Needs `npm run build` first.
import { fork } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { percentile } from './load.mjs';
import { round, sleep, start } from './processes.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);

if (process.env.EXPORT_PAUSE_ARM) {
  await runArm();
} else {
  const N = Number(option('iterations', 30000));
  const ROUNDS = Number(option('rounds', 3));
  const RATE = Number(option('rate', 2000));
  const arms = [];
  args.forEach((a, i) => {
    if (a !== '--arm') return;
    const spec = args[i + 1];
    const name = spec.slice(0, spec.indexOf('='));
    const env = Object.fromEntries(spec.slice(name.length + 1).split(' ').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    arms.push({ name, env });
  });
  if (arms.length === 0) arms.push({ name: 'shipped', env: {} });
  const sink = await start('child.mjs', ['sink']);
  const acc = Object.fromEntries(arms.map((a) => [a.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const arm of r % 2 === 0 ? arms : [...arms].reverse()) {
      const child = fork(fileURLToPath(import.meta.url), [], {
        env: { ...process.env, ...arm.env, EXPORT_PAUSE_ARM: '1', EXPORT_PAUSE_N: String(N), EXPORT_PAUSE_RATE: String(RATE), OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'sidegate-bench', OTEL_METRIC_EXPORT_INTERVAL: '60000' },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const result = await new Promise((resolve) => child.once('message', resolve));
      child.kill('SIGTERM');
      acc[arm.name].push(result);
    }
  }
  sink.child.kill('SIGTERM');
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`${N} requests per run at ${RATE}/s, ${ROUNDS} rounds, arms alternating; medians of the rounds (each round's figure in brackets)`);
  const out = {};
  for (const arm of arms) {
    const rs = acc[arm.name];
    const pick = (k) => ({ median: median(rs.map((x) => x[k])), each: rs.map((x) => x[k]) });
    out[arm.name] = { env: arm.env, cpu_us: pick('cpu_us'), gap_p50_us: pick('gap_p50_us'), gap_p99_us: pick('gap_p99_us'), gap_p999_us: pick('gap_p999_us'), gap_max_us: pick('gap_max_us'), cpu_gap_p99_us: pick('cpu_gap_p99_us'), cpu_gap_p999_us: pick('cpu_gap_p999_us'), cpu_gap_max_us: pick('cpu_gap_max_us'), dropped: rs.map((x) => x.dropped) };
    const f = (k) => `${out[arm.name][k].median} [${out[arm.name][k].each.join(', ')}]`;
    console.log(`${arm.name.padEnd(12)} CPU ${f('cpu_us')} µs/req; gap p50 ${f('gap_p50_us')}, p99 ${f('gap_p99_us')}, p99.9 ${f('gap_p999_us')}, max ${f('gap_max_us')} µs; CPU between two requests p99 ${f('cpu_gap_p99_us')}, p99.9 ${f('cpu_gap_p999_us')}, max ${f('cpu_gap_max_us')} µs; dropped ${out[arm.name].dropped.join(', ')}`);
  }
  console.log(JSON.stringify(out));
}

async function runArm() {
  const dist = process.env.BENCH_DIST ? pathToFileURL(`${process.env.BENCH_DIST.replace(/\/+$/, '')}/`) : new URL('../dist/', import.meta.url);
  const load = (p) => import(new URL(p, dist).href);
  const { parseChatRequest } = await load('openai/parse-chat-request.js');
  const { createTelemetry } = await load('telemetry/create-telemetry.js');
  const N = Number(process.env.EXPORT_PAUSE_N);
  const request = parseChatRequest({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 });
  const telemetry = createTelemetry({ env: process.env, logger: () => {} });
  const outcome = { responseId: 'r', responseModel: 'gemini-2.5-flash', finishReasons: ['stop'], usage: { inputTokens: 7, outputTokens: 9, reasoningTokens: 0, cachedInputTokens: 0 }, warnings: [] };
  const once = (i) => {
    const trace = { traceId: (i + 1).toString(16).padStart(32, '0'), spanId: (i + 1).toString(16).padStart(16, '0'), traceFlags: 1 };
    const span = telemetry.startRequest({ context: { trace, metadata: {} }, operation: 'chat', model: 'gemini-2.5-flash', route: '/v1/chat/completions', chat: request });
    const attempt = span.startAttempt({ providerName: 'gcp.gemini', operationName: 'generate_content', model: 'gemini-2.5-flash', baseUrl: 'http://127.0.0.1:8788', attemptNumber: 1, targetIndex: 'default', resendCount: 0 });
    attempt.traceHeaders();
    attempt.requestWritten?.(0.1);
    attempt.end({ status: 200, outcome });
    span.sampled();
    span.end({ status: 200, outcome, attempts: 1, finalTarget: 'default' });
  };
  // One request per macrotask, as a server gets them (each in its own I/O callback), at RATE per
  // second at most (ahead of schedule, the next one waits for a timer; that gap is not counted).
  // Unpaced, the batch processor's queue would fill and drop spans, which would then cost nothing.
  const RATE = Number(process.env.EXPORT_PAUSE_RATE);
  let cpuGaps = [];
  const run = (n, gaps) =>
    new Promise((resolve) => {
      let i = 0;
      let last;
      let lastCpu;
      let began;
      const step = (timed) => {
        const now = performance.now();
        const cpu = gaps ? process.cpuUsage() : undefined;
        began ??= now;
        if (gaps && last !== undefined && !timed) {
          gaps.push((now - last) * 1000);
          cpuGaps.push(cpu.user + cpu.system - lastCpu);
        }
        last = now;
        if (cpu) lastCpu = cpu.user + cpu.system;
        if (i === n) return resolve();
        once(i++);
        if (i > ((now - began) / 1000) * RATE) setTimeout(step, 1, true);
        else setImmediate(step, false);
      };
      setImmediate(step, false);
    });
  await run(3000);
  await sleep(500);
  const gapList = [];
  const before = process.cpuUsage();
  await run(N, gapList);
  await sleep(1500); // the last batches go out (their CPU is the gateway's too)
  const cpu = process.cpuUsage(before);
  const gaps = Float64Array.from(gapList).sort();
  const busy = Float64Array.from(cpuGaps).sort();
  const dropped = telemetry.droppedSpans?.() ?? undefined;
  process.send({
    cpu_us: round((cpu.user + cpu.system) / N, 1),
    gap_p50_us: Math.round(percentile(gaps, 50)),
    gap_p99_us: Math.round(percentile(gaps, 99)),
    gap_p999_us: Math.round(percentile(gaps, 99.9)),
    gap_max_us: Math.round(gaps[gaps.length - 1]),
    cpu_gap_p99_us: Math.round(percentile(busy, 99)),
    cpu_gap_p999_us: Math.round(percentile(busy, 99.9)),
    cpu_gap_max_us: Math.round(busy[busy.length - 1]),
    dropped,
  });
  await telemetry.shutdown(2000);
}
