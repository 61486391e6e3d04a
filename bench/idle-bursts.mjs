// What an idle minute costs the next requests: one participant serves bursts at a fixed rate with
// idle gaps between them, and each burst's CPU per request is printed with its user and system
// time, its minor page faults, and the CPU the process used while idle. After an idle gap V8's
// memory reducer collects the heap, and that collection deoptimizes code whose embedded maps died,
// which the next bursts compile again (docs/performance.md, "Issue 25, third round").
//   node bench/idle-bursts.mjs [--arm on|off|floor] [--gap 30] [--bursts 6] [--rate 200] [--seconds 5]
//                              [--flags "--no-memory-reducer"]   (after sidegate's shipped flags; the floor's only flags)
//                              [--target json|stream]   (what each request is; default json)
//                              [--run-in N]   (N unmeasured requests, then a second's pause, before
//                                             each burst, as npm run bench does before a segment)
//                              [--trace FILE]   (the process's stdout, e.g. with --flags "--trace-gc
//                                                --trace-opt --trace-deopt", marked at each gap and burst)
// Needs `npm run build` first.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { fixedRate, runCount, runIn, summarize } from './load.mjs';
import { cpuMs, sleep, start, startFloor, startSidegate, TICK_MS } from './processes.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const ARM = option('arm', 'on');
const GAP_S = Number(option('gap', 30));
const BURSTS = Number(option('bursts', 6));
const RATE = Number(option('rate', 200));
const SECONDS = Number(option('seconds', 5));
const FLAGS = option('flags', '').split(' ').filter(Boolean);
const TRACE = option('trace', undefined);
const TARGET = option('target', 'json');
const RUN_IN = Number(option('run-in', 0));

const sink = await start('child.mjs', ['sink']);
const emulator = await start('child.mjs', ['emulator']);
const env = ARM === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : { OTEL_SDK_DISABLED: 'true' };
const p = ARM === 'floor' ? await startFloor(emulator.url, 128, {}, FLAGS) : await startSidegate(emulator.url, env, FLAGS);
if (TRACE) {
  writeFileSync(TRACE, '');
  p.child.stdout.on('data', (d) => appendFileSync(TRACE, d));
}
const mark = (line) => TRACE && appendFileSync(TRACE, `==== ${line}\n`);

/** User and system CPU (ms) and minor page faults so far, from /proc/<pid>/stat. */
function stat() {
  const fields = readFileSync(`/proc/${p.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { faults: Number(fields[7]), user: Number(fields[11]) * TICK_MS, system: Number(fields[12]) * TICK_MS };
}

const latency = (us) => {
  const { p50_ms, p99_ms } = summarize(us);
  return `${p50_ms.toFixed(2)} / ${p99_ms.toFixed(2)}`;
};

await runCount(p.json, 5000);
console.log(`${ARM}${FLAGS.length ? ` ${FLAGS.join(' ')}` : ''}: ${BURSTS} bursts of ${SECONDS} s at ${RATE} ${TARGET} req/s, ${GAP_S} s idle before each${RUN_IN ? `, then a run-in of ${RUN_IN} and a second's pause` : ''}`);
for (let i = 0; i < BURSTS; i++) {
  const idleFrom = cpuMs(p.pid);
  mark(`idle ${i}`);
  await sleep(GAP_S * 1000);
  const idleCpu = cpuMs(p.pid) - idleFrom;
  if (RUN_IN > 0) {
    mark(`run-in ${i}`);
    await runIn(p[TARGET], RUN_IN);
  }
  mark(`burst ${i}`);
  const before = stat();
  const [result] = await fixedRate({ targets: [p[TARGET]], ratePerSecond: RATE, seconds: SECONDS });
  const after = stat();
  const n = Math.max(1, result.latencies.length + result.errors);
  const perRequest = Math.round(((after.user + after.system - before.user - before.system) * 1000) / n);
  console.log(
    `burst ${i + 1}: ${perRequest} µs/req (user ${Math.round(after.user - before.user)} ms, system ${Math.round(after.system - before.system)} ms, ` +
      `${after.faults - before.faults} minor faults, ${n} requests); idle before it ${Math.round(idleCpu)} ms CPU; ` +
      `p50 / p99 ${latency(result.latencies)}${TARGET === 'stream' ? `, first byte ${latency(result.ttfbs)}` : ''} ms`,
  );
}
p.child.kill();
emulator.child.kill();
sink.child.kill();
process.exit(0);
