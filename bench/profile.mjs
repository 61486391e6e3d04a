// Where the CPU above the floor and the tail go: each participant runs alone at a fixed rate while a
// V8 CPU profile (node:inspector, in process, exactly that segment), the event-loop delay
// (perf_hooks.monitorEventLoopDelay, 1 ms resolution) and GC pauses (PerformanceObserver 'gc') are
// recorded; CPU per request is read from /proc. Prints a summary per participant grouped by
// package, and writes DIR/<participant>.cpuprofile (open in Chrome DevTools) and DIR/summary.json.
//   node bench/profile.mjs [--rate 1000|max] [--seconds 10] [--out DIR] [--only floor,on,off]
//                          (also: sdkfloor, sdkfull, down, noexport)
//                          [--flags "--max-semi-space-size=16"]   (adds "flags": sidegate, tracing
//                                                                  on, with these V8/Node flags)
//                          [--stream]  (streams instead of JSON answers)
// Needs `npm run build` first. Profiling costs CPU of its own (sampling every 250 µs): compare
// participants within one run, never with `npm run bench` figures.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fixedRate, maxThroughput, summarize } from './load.mjs';
import { ask, cpuMs, freePort, round, start, startFloor, startSdkFloor, startSidegate } from './processes.mjs';
import { printSummary, summarizeProfile } from './profile-summary.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
// `--rate max`: the bench's max-throughput segment (32 connections, closed loop) instead of a fixed rate
const RATE = option('rate', '1000') === 'max' ? 'max' : Number(option('rate', 1000));
const SECONDS = Number(option('seconds', 10));
const OUT = resolve(option('out', 'bench/results/profile'));
const FLAGS = option('flags', undefined)?.split(' ').filter(Boolean);
const ONLY = option('only', 'floor,on,off').split(',');
const KIND = args.includes('--stream') ? 'stream' : 'json';
if (FLAGS && !ONLY.includes('flags')) ONLY.push('flags');

mkdirSync(OUT, { recursive: true });
const probe = { BENCH_PROBE: '1' };
const sink = await start('child.mjs', ['sink']);
const emulator = await start('child.mjs', ['emulator']);
const deadPort = await freePort();
const starters = {
  floor: () => startFloor(emulator.url, 128, probe),
  // the floor + the real SDK called the plainest way (floor-telemetry.mjs): what the SDK costs any gateway
  sdkfloor: () => startSdkFloor(emulator.url, sink.url, probe),
  sdkfull: () => startSdkFloor(emulator.url, sink.url, { ...probe, FLOOR_SPAN_CONTENT: 'sidegate' }),
  on: () => startSidegate(emulator.url, { ...probe, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }),
  off: () => startSidegate(emulator.url, { ...probe, OTEL_SDK_DISABLED: 'true' }),
  down: () => startSidegate(emulator.url, { ...probe, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${deadPort}` }),
  // spans made and ended, but no span processor: what the export pipeline costs is on − noexport
  noexport: () => startSidegate(emulator.url, { ...probe, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_EXPORTER: 'none' }),
  flags: () => startSidegate(emulator.url, { ...probe, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }, FLAGS ?? []),
};

const summary = { date: new Date().toISOString(), command: `node bench/profile.mjs ${args.join(' ')}`.trim(), rate: RATE, seconds: SECONDS, flags: FLAGS, participants: {} };
const seen = {};
for (const key of ONLY) {
  // a participant named twice (to interleave: on,off,on,off) gets a fresh process and its own entry
  seen[key] = (seen[key] ?? 0) + 1;
  const name = seen[key] > 1 ? `${key}#${seen[key]}` : key;
  const p = await starters[key]();
  await maxThroughput({ target: p[KIND], seconds: 2 });
  await ask(p.child, 'probe');
  const file = join(OUT, `${name}.cpuprofile`);
  await ask(p.child, 'cpuprof', { action: 'start' });
  const before = cpuMs(p.pid);
  const result =
    RATE === 'max'
      ? await maxThroughput({ target: p[KIND], seconds: SECONDS })
      : (await fixedRate({ targets: [p[KIND]], ratePerSecond: RATE, seconds: SECONDS }))[0];
  const cpu = cpuMs(p.pid) - before;
  await ask(p.child, 'cpuprof', { action: 'stop', file });
  const probed = await ask(p.child, 'probe');
  p.child.kill('SIGTERM');
  const requests = RATE === 'max' ? result.ok + result.errors : result.latencies.length + result.errors;
  const latency = RATE === 'max' ? result : summarize(result.latencies);
  const gcMs = Object.values(probed.gc).reduce((sum, k) => sum + k.ms, 0);
  const profile = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')));
  summary.participants[name] = {
    requests,
    errors: result.errors,
    unfinished: result.unfinished,
    p50_ms: round(latency.p50_ms),
    p99_ms: round(latency.p99_ms),
    cpu_per_request_us: Math.round((cpu * 1000) / requests),
    event_loop_delay_ms: probed.event_loop_delay_ms,
    gc: probed.gc,
    gc_us_per_request: round((gcMs * 1000) / requests, 1),
    profile_us_per_request: Object.fromEntries(profile.groups.filter(([, us]) => us / profile.busy >= 0.005).map(([g, us]) => [g, round(us / requests, 1)])),
    top_functions_us_per_request: Object.fromEntries(profile.functions.slice(0, 30).map(([f, us]) => [f, round(us / requests, 1)])),
  };
  const s = summary.participants[name];
  const rate = RATE === 'max' ? `max (${Math.round(result.rps)} req/s)` : `${RATE} req/s`;
  console.log(`\n== ${name}: ${requests} requests at ${rate}; p50 ${s.p50_ms} ms, p99 ${s.p99_ms} ms; CPU ${s.cpu_per_request_us} µs/req (/proc, whole process)`);
  console.log(`event-loop delay (ms): p50 ${s.event_loop_delay_ms.p50}, p99 ${s.event_loop_delay_ms.p99}, max ${s.event_loop_delay_ms.max}`);
  console.log(`GC: ${Object.entries(s.gc).map(([k, v]) => `${k} ${v.count}× ${round(v.ms, 1)} ms (max ${round(v.max_ms, 2)})`).join(', ')} → ${s.gc_us_per_request} µs/req`);
  printSummary(name, profile, requests, 20);
}
writeFileSync(join(OUT, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
emulator.child.kill('SIGTERM');
sink.child.kill('SIGTERM');
console.log(`\nprofiles and summary.json in ${OUT}`);
