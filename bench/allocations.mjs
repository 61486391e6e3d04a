// Where each request's allocations come from: V8's sampling heap profile of every allocation,
// collected or not (probe.mjs `allocprof`), over one fixed-rate segment of one participant,
// printed as bytes per request by allocating function. Young-generation churn is what the
// scavenger pays for, and a live-heap snapshot cannot show it.
//   node bench/allocations.mjs [--only off|on|floor|sdkfloor|sdkfull] [--rate 1000|max] [--seconds 3] [--top 30] [--promoted]
//                              [--target json|stream]   (what each request is; default json)
//                              [--env K=V,K=V]          (more environment for sidegate, e.g. OTEL_TRACES_EXPORTER=none)
// --rate max: the bench's max-throughput segment (32 connections, closed loop).
// --promoted: only what was promoted to the old generation (or allocated there): objects that
// scavenges collected are left out, and two scavenges run before the profile is read, so what is
// still young and alive at the end is promoted with the rest (the few requests then in flight).
// Needs `npm run build` first. The file is written to bench/results/alloc-<participant>.json.
import { readFileSync } from 'node:fs';
import { fixedRate, maxThroughput } from './load.mjs';
import { ask, start, startFloor, startSdkFloor, startSidegate } from './processes.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const WHICH = option('only', 'off');
const RATE = option('rate', '1000') === 'max' ? 'max' : Number(option('rate', 1000));
const ENV = Object.fromEntries((option('env', '') || '').split(',').filter(Boolean).map((kv) => kv.split('=')));
const SECONDS = Number(option('seconds', 3));
const TOP = Number(option('top', 30));
const PROMOTED = process.argv.includes('--promoted');
const TARGET = option('target', 'json');

const emulator = await start('child.mjs', ['emulator']);
const sink = await start('child.mjs', ['sink']);
// sdkfloor / sdkfull: the floor with the real SDK (floor-telemetry.mjs), with its own or sidegate's span content
const p =
  WHICH === 'floor'
    ? await startFloor(emulator.url)
    : WHICH === 'sdkfloor' || WHICH === 'sdkfull'
    ? await startSdkFloor(emulator.url, sink.url, WHICH === 'sdkfull' ? { FLOOR_SPAN_CONTENT: 'sidegate' } : {})
    : await startSidegate(emulator.url, { ...(WHICH === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : { OTEL_SDK_DISABLED: 'true' }), ...ENV });
await maxThroughput({ target: p[TARGET], seconds: 2 });
const file = new URL(`./results/alloc-${WHICH}.json`, import.meta.url).pathname;
await ask(p.child, 'allocprof', { action: 'start', promotedOnly: PROMOTED });
const requests =
  RATE === 'max'
    ? (await maxThroughput({ target: p[TARGET], seconds: SECONDS })).ok
    : (await fixedRate({ targets: [p[TARGET]], ratePerSecond: RATE, seconds: SECONDS }))[0].latencies.length;
await ask(p.child, 'allocprof', { action: 'stop', file, promotedOnly: PROMOTED });
for (const c of [p.child, emulator.child, sink.child]) c.kill('SIGTERM');

const bytes = new Map();
let total = 0;
const walk = (node) => {
  const f = node.callFrame;
  const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/.*\/(dist|node_modules)\//, '')}:${f.lineNumber + 1}`;
  total += node.selfSize;
  bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child);
};
walk(JSON.parse(readFileSync(file, 'utf8')).head);
console.log(`${WHICH}: ${requests} ${TARGET} requests at ${RATE} req/s, ${(total / requests / 1024).toFixed(1)} KiB ${PROMOTED ? 'promoted to the old generation' : 'allocated'} per request (sampled every 1 KiB)`);
for (const [key, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
  console.log(`${String(Math.round(size / requests)).padStart(7)} B/req  ${key}`);
}
console.log(`profile: ${file}`);
