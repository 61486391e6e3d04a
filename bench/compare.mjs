// A/B of CPU per request on a busy machine: the participants are served at the same time, their
// requests interleaved one by one at a fixed rate each, so every one of them sees the same machine
// conditions in the same window; CPU per request comes from /proc. Ratios within one run are what
// to compare (the absolute figures move with the machine's load).
//   node bench/compare.mjs [--rate 300|max] [--seconds 10] [--rounds 3] [--only floor,off,on]
//                          (also: sdkfloor, the floor + the real SDK called the plainest way,
//                          bench/floor-telemetry.mjs; sdkfull, the same with sidegate's span
//                          content; down, a dead collector; noexport)
//                          [--flags "--max-semi-space-size=16"]   (adds "flags": sidegate, tracing
//                                                                  on, with these V8/Node flags)
//                          [--env "NAME=value NAME2=value"]       (adds "env": sidegate, tracing
//                                                                  on, with this environment)
//                          [--baseline DIR]                       (adds "base": tracing on, and
//                                                                  "base-off", each run from the
//                                                                  build in DIR, e.g. another
//                                                                  commit's dist/ built elsewhere)
//                          [--stream]  (streams instead of JSON answers: adds time to first
//                                      byte, p50 and p99, to each participant's line)
//                          [--threads] (also CPU per request on the event loop's thread alone,
//                                      /proc/<pid>/task/<pid>/stat, on the other threads, and
//                                      the system (kernel) share of the process's)
//                          [--alone]   (each participant served alone in turn, the order rotating
//                                      each round, instead of interleaved: for the tail, p99 and
//                                      p99.9, which another participant's pauses would move;
//                                      always so with --rate max, the bench's closed loop of 32
//                                      connections, which prints each one's req/s too)
// Needs `npm run build` first. The participant started first (the order of --only; --baseline's
// arms come last unless named) measured 8–17 µs per request more CPU at 500 req/s in A/A runs (the
// same build as `on` and as `base`, 2026-11-26): judge an A/B by swapping the order, or against an A/A.
import { fixedRate, maxThroughput, percentile, summarize } from './load.mjs';
import { cpuMs, freePort, mainThreadCpuMs, round, systemCpuMs, start, startFloor, startSdkFloor, startSidegate } from './processes.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const MAX = option('rate', '300') === 'max';
const RATE = MAX ? 'max' : Number(option('rate', 300));
const SECONDS = Number(option('seconds', 10));
const ROUNDS = Number(option('rounds', 3));
const FLAGS = option('flags', undefined)?.split(' ').filter(Boolean);
const ENV = option('env', undefined) && Object.fromEntries(option('env').split(' ').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const ONLY = option('only', 'floor,off,on').split(',');
if (FLAGS && !ONLY.includes('flags')) ONLY.push('flags');
if (ENV && !ONLY.includes('env')) ONLY.push('env');
const BASELINE = option('baseline', undefined);
const ALONE = MAX || args.includes('--alone');
const KIND = args.includes('--stream') ? 'stream' : 'json';
const THREADS = args.includes('--threads');
if (BASELINE) for (const key of ['base', 'base-off']) if (!ONLY.includes(key)) ONLY.push(key);

const sink = await start('child.mjs', ['sink']);
const emulator = await start('child.mjs', ['emulator']);
const deadPort = await freePort();
const on = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url };
const starters = {
  floor: () => startFloor(emulator.url),
  // The floor + the real SDK called the plainest way (bench/floor-telemetry.mjs), exporting.
  sdkfloor: () => startSdkFloor(emulator.url, sink.url),
  // The same with sidegate's span content, attribute for attribute (floor-telemetry.mjs).
  sdkfull: () => startSdkFloor(emulator.url, sink.url, { FLOOR_SPAN_CONTENT: 'sidegate' }),
  on: () => startSidegate(emulator.url, on),
  off: () => startSidegate(emulator.url, { OTEL_SDK_DISABLED: 'true' }),
  down: () => startSidegate(emulator.url, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${deadPort}` }),
  noexport: () => startSidegate(emulator.url, { ...on, OTEL_TRACES_EXPORTER: 'none' }),
  flags: () => startSidegate(emulator.url, on, FLAGS ?? []),
  env: () => startSidegate(emulator.url, { ...on, ...ENV }),
  base: () => startSidegate(emulator.url, { ...on, BENCH_DIST: BASELINE }),
  'base-off': () => startSidegate(emulator.url, { OTEL_SDK_DISABLED: 'true', BENCH_DIST: BASELINE }),
};
const parts = [];
for (const key of ONLY) parts.push({ key, ...(await starters[key]()) });
for (const p of parts) await maxThroughput({ target: p.json, seconds: 2 });

const acc = parts.map(() => ({ cpu: 0, mainCpu: 0, systemCpu: 0, requests: 0, latencies: [], ttfbs: [], errors: 0, rps: [] }));
// --threads: the event loop's thread's CPU and the process's system share, read around the same
// segments as the process's CPU; nothing is read without it.
const mainBefore = parts.map(() => 0);
const systemBefore = parts.map(() => 0);
const markThreads = (i) => {
  if (!THREADS) return;
  mainBefore[i] = mainThreadCpuMs(parts[i].pid);
  systemBefore[i] = systemCpuMs(parts[i].pid);
};
const addThreads = (i) => {
  if (!THREADS) return;
  acc[i].mainCpu += mainThreadCpuMs(parts[i].pid) - mainBefore[i];
  acc[i].systemCpu += systemCpuMs(parts[i].pid) - systemBefore[i];
};
function add(i, cpu, result) {
  acc[i].cpu += cpu;
  acc[i].requests += result.latencies.length + result.errors;
  acc[i].latencies.push(...result.latencies);
  acc[i].ttfbs.push(...result.ttfbs);
  acc[i].errors += result.errors;
}
for (let r = 0; r < ROUNDS; r++) {
  // rotate who goes first in the interleaving, so no one is always first after a pause
  const order = parts.map((_, i) => (i + r) % parts.length);
  if (ALONE) {
    for (const i of order) {
      markThreads(i);
      const before = cpuMs(parts[i].pid);
      if (MAX) {
        const result = await maxThroughput({ target: parts[i][KIND], seconds: SECONDS });
        acc[i].cpu += cpuMs(parts[i].pid) - before;
        addThreads(i);
        acc[i].requests += result.ok + result.errors;
        acc[i].errors += result.errors;
        acc[i].rps.push(Math.round(result.rps));
        continue;
      }
      const [result] = await fixedRate({ targets: [parts[i][KIND]], ratePerSecond: RATE, seconds: SECONDS });
      add(i, cpuMs(parts[i].pid) - before, result);
      addThreads(i);
    }
    continue;
  }
  parts.forEach((_, i) => markThreads(i));
  const before = parts.map((p) => cpuMs(p.pid));
  const results = await fixedRate({ targets: order.map((i) => parts[i][KIND]), ratePerSecond: RATE * parts.length, seconds: SECONDS });
  order.forEach((i, j) => add(i, cpuMs(parts[i].pid) - before[i], results[j]));
  parts.forEach((_, i) => addThreads(i));
}
const base = acc[parts.findIndex((p) => p.key === 'floor')];
const out = {};
console.log(`${KIND === 'stream' ? 'streams, ' : ''}${RATE} req/s each, ${parts.length} participants ${ALONE ? 'each alone in turn' : 'interleaved'}, ${ROUNDS}×${SECONDS} s${FLAGS ? `; flags: ${FLAGS.join(' ')}` : ''}${ENV ? `; env: ${option('env')}` : ''}`);
parts.forEach((p, i) => {
  const a = acc[i];
  const us = (a.cpu * 1000) / a.requests;
  const mainUs = (a.mainCpu * 1000) / a.requests;
  const systemUs = (a.systemCpu * 1000) / a.requests;
  const threadsOut = THREADS ? { event_loop_thread_cpu_per_request_us: Math.round(mainUs), system_cpu_per_request_us: Math.round(systemUs) } : {};
  const s = summarize(a.latencies);
  const sorted = Float64Array.from(a.latencies).sort();
  const at = (p) => percentile(sorted, p) / 1000;
  const p999 = at(99.9);
  out[p.key] = { cpu_per_request_us: Math.round(us), p50_ms: round(s.p50_ms), p99_ms: round(s.p99_ms), p999_ms: round(p999), errors: a.errors, ...threadsOut };
  const t = KIND === 'stream' ? summarize(a.ttfbs) : undefined;
  if (t) Object.assign(out[p.key], { ttfb_p50_ms: round(t.p50_ms), ttfb_p99_ms: round(t.p99_ms) });
  const ratio = base ? ` (${round(us / ((base.cpu * 1000) / base.requests), 2)}× floor)` : '';
  const threads = THREADS ? `; event loop's thread ${Math.round(mainUs)} µs/req${base ? ` (${round(mainUs / ((base.mainCpu * 1000) / base.requests), 2)}× floor's)` : ''}, other threads ${Math.round(us - mainUs)}; system ${Math.round(systemUs)} of the ${Math.round(us)}` : '';
  if (MAX) {
    out[p.key] = { cpu_per_request_us: Math.round(us), rps: a.rps, errors: a.errors, ...threadsOut };
    console.log(`${p.key.padEnd(10)} CPU ${String(Math.round(us)).padStart(5)} µs/req${ratio}${threads}, req/s by round ${a.rps.join(', ')}, errors ${a.errors}`);
    p.child.kill('SIGTERM');
    return;
  }
  console.log(`${p.key.padEnd(10)} CPU ${String(Math.round(us)).padStart(5)} µs/req${ratio}${threads}, p50 ${round(s.p50_ms, 2)}, p90 ${round(at(90), 2)}, p95 ${round(at(95), 2)}, p98 ${round(at(98), 2)}, p99 ${round(s.p99_ms, 2)} ms, p99.9 ${round(p999, 2)} ms${t ? `, TTFB p50 ${round(t.p50_ms, 2)}, p99 ${round(t.p99_ms, 2)} ms` : ''}, errors ${a.errors}`);
  p.child.kill('SIGTERM');
});
console.log(JSON.stringify(out));
emulator.child.kill('SIGTERM');
sink.child.kill('SIGTERM');
