// Where a stream's time to first byte goes: one stream at a time, round robin through the upstream
// alone (direct), the floor, the floor+SDK, sidegate with tracing off and with tracing on, so each
// participant's first byte is timed with nothing else in flight and under the same machine
// conditions. Splits the bench's "stream first byte added" into the SDK's share (floor+SDK − floor),
// sidegate's own work (tracing off − floor) and its tracing (on − off).
//   node bench/first-byte.mjs [--streams 400] [--gap-ms 5] [--baseline DIR]
// --gap-ms: the pause after each stream (0: back to back; the bench's 200 req/s is 5 ms apart).
// --baseline: adds "base-off" and "base" (tracing off and on) run from the build in DIR (another
// commit's dist/ built elsewhere), in the same round robin: an A/B of a change's first byte. Two
// A/A runs (this build as its own baseline, 2026-11-28) differed by up to 0.14 ms 5 ms apart and
// 0.03 ms back to back: a change smaller than that is not seen here.
// Needs `npm run build` first. Latency, not CPU: compare the participants of one run only.
import { newPool, once, runCount, summarize } from './load.mjs';
import { round, sleep, start, startFloor, startSdkFloor, startSidegate, directTargets } from './processes.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const STREAMS = option('streams', 400);
const BASELINE = args.includes('--baseline') ? args[args.indexOf('--baseline') + 1] : undefined;
const GAP_MS = option('gap-ms', 5);
/** Streams per participant before timing: its code warm, its pools open (as the bench's warm-up). */
const WARM_UP = 3000;

const sink = await start('child.mjs', ['sink']);
const emulator = await start('child.mjs', ['emulator']);
const participants = {
  direct: { stream: directTargets(emulator.url).stream },
  floor: await startFloor(emulator.url, 128),
  sdkfloor: await startSdkFloor(emulator.url, sink.url),
  off: await startSidegate(emulator.url, { OTEL_SDK_DISABLED: 'true' }),
  on: await startSidegate(emulator.url, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }),
  ...(BASELINE
    ? {
        'base-off': await startSidegate(emulator.url, { OTEL_SDK_DISABLED: 'true', BENCH_DIST: BASELINE }),
        base: await startSidegate(emulator.url, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, BENCH_DIST: BASELINE }),
      }
    : {}),
};
const names = Object.keys(participants);
for (const name of names) await runCount(participants[name].stream, WARM_UP);

// One connection each, kept alive: every stream after the first reuses it, as a sidecar's client does.
const pools = Object.fromEntries(names.map((name) => [name, newPool(participants[name].stream.origin, 1)]));
const ttfbs = Object.fromEntries(names.map((name) => [name, []]));
for (let i = 0; i < STREAMS; i++) {
  for (const name of names) {
    const [, status, ttfbUs] = await once(pools[name], participants[name].stream);
    if (status === 200) ttfbs[name].push(ttfbUs);
    if (GAP_MS > 0) await sleep(GAP_MS);
  }
}

// The bench's own p50 (load.mjs), as compare.mjs reports time to first byte.
const p50 = Object.fromEntries(names.map((name) => [name, summarize(ttfbs[name]).p50_ms]));
console.log(`${STREAMS} streams each, one at a time, ${GAP_MS} ms apart; time to first byte, p50:`);
for (const name of names) console.log(`  ${name.padEnd(9)} ${round(p50[name])} ms${name === 'direct' ? '' : ` (added ${round(p50[name] - p50.direct)})`}`);
const split = {
  sdk: round(p50.sdkfloor - p50.floor),
  sidegate_own_work: round(p50.off - p50.floor),
  sidegate_tracing: round(p50.on - p50.off),
  sidegate_over_floor: round(p50.on - p50.floor),
};
console.log(`  floor+SDK − floor ${split.sdk} ms; tracing off − floor ${split.sidegate_own_work} ms; on − off ${split.sidegate_tracing} ms; on − floor ${split.sidegate_over_floor} ms`);
if (BASELINE) {
  Object.assign(split, { off_minus_base_off: round(p50.off - p50['base-off']), on_minus_base: round(p50.on - p50.base) });
  console.log(`  this build − the baseline's: tracing off ${split.off_minus_base_off} ms, tracing on ${split.on_minus_base} ms`);
}
console.log(JSON.stringify({ streams: STREAMS, gap_ms: GAP_MS, ttfb_p50_ms: Object.fromEntries(names.map((n) => [n, round(p50[n])])), split }));

for (const p of [sink, emulator, ...Object.values(participants)]) p.child?.kill('SIGTERM');
