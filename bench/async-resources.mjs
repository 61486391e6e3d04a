// Promises, timers and other async resources each request creates, per participant: counted with an
// async_hooks init hook (probe.mjs, BENCH_COUNT_ASYNC=1) between two probes around N requests, so
// the figure is exact and the same on a busy host as on a quiet one, where CPU figures are not.
// Each is a little work on the event loop (a promise: its allocation, a reaction job, a resume),
// which the time of a single change on the bench's figures is often too small to show.
//   node bench/async-resources.mjs [--requests 10000] [--only floor,off,on] [--stream]
// Needs `npm run build` first. The hook slows every promise: no CPU or time figure from these
// processes means anything, so this prints counts only.
import { runCount } from './load.mjs';
import { ask, start, startFloor, startSidegate } from './processes.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const REQUESTS = Number(option('requests', 10000));
const ONLY = option('only', 'floor,off,on').split(',');
const KIND = args.includes('--stream') ? 'stream' : 'json';

const counting = { BENCH_COUNT_ASYNC: '1' };
const emulator = await start('child.mjs', ['emulator']);
const sink = await start('child.mjs', ['sink']);
const starters = {
  floor: () => startFloor(emulator.url, 128, counting),
  off: () => startSidegate(emulator.url, { ...counting, OTEL_SDK_DISABLED: 'true' }),
  on: () => startSidegate(emulator.url, { ...counting, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }),
};
const out = {};
for (const name of ONLY) {
  if (!starters[name]) throw new Error(`unknown participant ${name} (floor, off, on)`);
  const p = await starters[name]();
  const target = p[KIND];
  await runCount(target, 2000, 8); // run-in: pools, caches and lazily loaded modules settle
  const before = (await ask(p.child, 'async')).created;
  await runCount(target, REQUESTS, 8);
  const after = (await ask(p.child, 'async')).created;
  const perRequest = {};
  for (const type of Object.keys(after).sort()) {
    const n = (after[type] - (before[type] ?? 0)) / REQUESTS;
    if (n >= 0.005) perRequest[type] = Math.round(n * 100) / 100;
  }
  out[name] = perRequest;
  console.log(`${name.padEnd(6)} ${Object.entries(perRequest).map(([t, n]) => `${t} ${n}`).join(', ')}`);
  p.child.kill('SIGTERM');
}
console.log(JSON.stringify({ kind: KIND, requests: REQUESTS, per_request: out }));
for (const p of [emulator, sink]) p.child.kill('SIGTERM');
process.exit(0);
