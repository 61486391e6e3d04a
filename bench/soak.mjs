// `node bench/soak.mjs` (after `npm run build`): the bar's "memory flat over a million requests",
// with traffic that varies what a real fleet varies. `npm run bench` keeps its 50,000 identical
// requests (a tenth of its run time); this run is the long one, recorded in docs/performance.md.
//
// sidegate runs with tracing on, every span and metric exported to a live OTLP receiver, against
// the emulator, each in its own process (the bench's children). A closed loop sends a mix in which
// every request carries something no request before it did, so any cache keyed by what a client
// sends must show its bound:
//   - JSON and streamed chat, each with a new `x-gateway-trace-id` and metadata of a new value;
//   - an explicit `x-gateway-span-id` (the span-id reuse registry, Decision 1), and a W3C
//     `traceparent` of new ids;
//   - a fallback config whose first target names a model the upstream does not serve (404, then
//     the second target: two attempt spans), and a model id never seen before (404 to the client,
//     one more metric series per histogram until the cardinality limit);
//   - a bad request (400, zod at the edge) and a stream the client drops after its first event.
// Every twentieth of the run, the gateway's heap after a full GC, its RSS and its CPU per request over
// that twentieth are sampled (CPU is shown, not judged: the host moves it). The verdict reads the
// second half, from the middle sample to the end: the heap's trend there (a least-squares line
// through those samples) may add at most --max-growth-mb (default 2) MB over that half. A trend,
// not the last sample less the middle one: a sample catches whatever is in flight at that instant
// (with the collector down, the batch processor's queue of up to 2,048 spans swings the heap by
// about 3 MB from one sample to the next). The first half is where bounded caches fill: the span-id
// registry's 100,000 pairs take a fifth of this mix's first 500,000 requests, and each histogram's
// 2,000 series the first 40,000 (a new model every twentieth request).
//   --requests N      requests in all (default 1,000,000)
//   --connections N   closed-loop connections (default 32, as the bench's maximum)
//   --max-growth-mb M the verdict's bound on the heap's trend over the second half
//   --collector C     live (default: a receiver that answers 200), down (nothing listens on the
//                     port) or blackhole (reads every export and never answers): a sidecar whose
//                     collector is gone for hours must not hold on to what it could not send
//   --kinds a,b       only these kinds (json, stream, span-id, traceparent, fallback, new-model,
//                     bad-input, client-abort): which one holds on to memory
// Prints each sample and the statuses, writes bench/results/soak-<timestamp>.json, exits 1 when the
// heap was not flat or a request failed in a way its kind does not expect.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newPool } from './load.mjs';
import { ask, cpuMs, freePort, MODEL, mb, round, sidegateHeaders, spansDropped, start, startSidegate } from './processes.mjs';

const args = process.argv.slice(2);
const num = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const REQUESTS = num('requests', 1_000_000);
const CONNECTIONS = num('connections', 32);
const MAX_GROWTH_MB = num('max-growth-mb', 2);
const kindsArg = args.indexOf('--kinds');
const ONLY_KINDS = kindsArg === -1 ? undefined : args[kindsArg + 1].split(',');
const collectorArg = args.indexOf('--collector');
const COLLECTOR = collectorArg === -1 ? 'live' : args[collectorArg + 1];
if (!['live', 'down', 'blackhole'].includes(COLLECTOR)) throw new Error(`--collector: live, down or blackhole, not ${COLLECTOR}`);

const message = [{ role: 'user', content: 'Say hello to the soak.' }];
const fallbackConfig = JSON.stringify({
  strategy: { mode: 'fallback', on_status_codes: [404] },
  targets: [{ override_params: { model: 'gemini-not-served' } }, { override_params: { model: MODEL } }],
});

/** Each kind: how often in a cycle of 20, how to build the request, which statuses it expects. */
const KINDS = [
  { name: 'json', share: 6, expect: [200], build: (i) => chat(i, {}) },
  { name: 'stream', share: 3, expect: [200], build: (i) => chat(i, { stream: true }) },
  { name: 'span id', share: 4, expect: [200], build: (i) => chat(i, {}, { 'x-gateway-span-id': randomBytes(8).toString('hex') }) },
  {
    name: 'traceparent',
    share: 2,
    expect: [200],
    build: (i) => chat(i, {}, { traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01` }),
  },
  { name: 'fallback', share: 2, expect: [200], build: (i) => chat(i, {}, { 'x-gateway-config': fallbackConfig }) },
  { name: 'new model', share: 1, expect: [404], build: (i) => chat(i, { model: `gemini-soak-${i}` }) },
  { name: 'bad input', share: 1, expect: [400], build: () => ({ body: JSON.stringify({ model: MODEL, messages: 'not a list' }), headers: sidegateHeaders }) },
  { name: 'client abort', share: 1, expect: ['aborted'], abort: true, build: (i) => chat(i, { stream: true }) },
];
const CYCLE = KINDS.filter((kind) => ONLY_KINDS === undefined || ONLY_KINDS.includes(kind.name.replace(' ', '-'))).flatMap((kind) => Array.from({ length: kind.share }, () => kind));

function chat(i, fields, headers = {}) {
  return {
    body: JSON.stringify({ model: MODEL, messages: message, max_tokens: 32, ...fields }),
    headers: {
      ...sidegateHeaders,
      'x-gateway-trace-id': randomUUID(),
      'x-gateway-metadata': JSON.stringify({ user: `soak-user-${i}` }),
      ...headers,
    },
  };
}

/** Sends one request of `kind`; resolves with its status, or 'aborted' when the client dropped it. */
async function send(pool, kind, i) {
  const { body, headers } = kind.build(i);
  const controller = kind.abort ? new AbortController() : undefined;
  const res = await pool.request({ method: 'POST', path: '/v1/chat/completions', headers, body, signal: controller?.signal });
  if (controller === undefined) {
    await res.body.dump();
    return res.statusCode;
  }
  try {
    for await (const _ of res.body) {
      controller.abort();
    }
  } catch {
    return 'aborted';
  }
  return res.statusCode;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const emulator = await start('child.mjs', ['emulator']);
const sink = COLLECTOR === 'live' ? await start('child.mjs', ['sink']) : undefined;
// A black hole in this process: it reads each export and never answers, so every export waits out
// the exporter's timeout.
const blackhole = COLLECTOR === 'blackhole' ? createServer((req) => req.resume()) : undefined;
if (blackhole !== undefined) await new Promise((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
const collectorUrl =
  sink?.url ?? (blackhole !== undefined ? `http://127.0.0.1:${blackhole.address().port}` : `http://127.0.0.1:${await freePort()}`);
const gateway = await startSidegate(emulator.url, { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_METRIC_EXPORT_INTERVAL: '10000' });

const samples = [];
const statuses = {};
const unexpected = {};
// The gateway's CPU over each twentieth (read before its full GC), per request: a structure that grows
// with what clients send slows the requests that touch it long before memory shows it.
let cpuBefore = 0;
let doneBefore = 0;
const sample = async (done) => {
  const cpu = cpuMs(gateway.pid);
  const cpuPerRequestUs = done > doneBefore ? round(((cpu - cpuBefore) * 1000) / (done - doneBefore), 1) : undefined;
  const m = await ask(gateway.child, 'mem', { gc: true });
  const row = { requests: done, heap_used_mb: mb(m.heapUsed), rss_mb: mb(m.rss), external_mb: mb(m.external), ...(cpuPerRequestUs !== undefined ? { cpu_per_request_us: cpuPerRequestUs } : {}) };
  samples.push(row);
  cpuBefore = cpuMs(gateway.pid);
  doneBefore = done;
  console.log(`${String(done).padStart(9)} requests: heap ${row.heap_used_mb} MB, RSS ${row.rss_mb} MB, external ${row.external_mb} MB${cpuPerRequestUs !== undefined ? `, CPU ${cpuPerRequestUs} µs per request since the last sample` : ''}`);
};

const startedAt = performance.now();
await sample(0);
const pool = newPool(gateway.url, CONNECTIONS);
const SAMPLES = 20;
const step = Math.max(1, Math.floor(REQUESTS / SAMPLES));
let next = 0;
for (let part = 1; next < REQUESTS; part++) {
  const until = Math.min(REQUESTS, part * step);
  const worker = async () => {
    while (next < until) {
      const i = next++;
      const kind = CYCLE[i % CYCLE.length];
      let status;
      try {
        status = await send(pool, kind, i);
      } catch (error) {
        status = `error ${error.code ?? error.name}`;
      }
      const key = `${kind.name} ${status}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
      if (!kind.expect.includes(status)) unexpected[key] = (unexpected[key] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  await sample(next);
}
await pool.close();
const seconds = (performance.now() - startedAt) / 1000;

const dropped = await spansDropped(gateway);
for (const p of [gateway, emulator, sink]) p?.child.kill('SIGTERM');
blackhole?.closeAllConnections();
blackhole?.close();

// The first half after its first tenth, and the second half: the first tenth carries the start's
// compilation and the caches' filling.
const cpuOf = (rows) => round(rows.reduce((sum, r) => sum + r.cpu_per_request_us, 0) / rows.length, 1);
const middleIndex = Math.floor((samples.length - 1) / 2);
const firstHalfCpu = cpuOf(samples.slice(1 + SAMPLES / 10, middleIndex + 1));
const secondHalfCpu = cpuOf(samples.slice(middleIndex + 1));
const middle = samples[middleIndex];
const secondHalf = samples.slice(middleIndex);
const growth = round(trendOver(secondHalf), 1);
const swing = round(Math.max(...secondHalf.map((r) => r.heap_used_mb)) - Math.min(...secondHalf.map((r) => r.heap_used_mb)), 1);
const flat = growth <= MAX_GROWTH_MB;

/** What the least-squares line through `rows` (heap against requests) adds from the first row to the last, in MB. */
function trendOver(rows) {
  const n = rows.length;
  const meanX = rows.reduce((sum, r) => sum + r.requests, 0) / n;
  const meanY = rows.reduce((sum, r) => sum + r.heap_used_mb, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const r of rows) {
    sxy += (r.requests - meanX) * (r.heap_used_mb - meanY);
    sxx += (r.requests - meanX) ** 2;
  }
  return sxx === 0 ? 0 : (sxy / sxx) * (rows.at(-1).requests - rows[0].requests);
}
const report = {
  when: new Date().toISOString(),
  node: process.version,
  requests: REQUESTS,
  connections: CONNECTIONS,
  collector: COLLECTOR,
  seconds: round(seconds, 1),
  requests_per_second: Math.round(REQUESTS / seconds),
  samples,
  heap_trend_second_half_mb: growth,
  heap_swing_second_half_mb: swing,
  cpu_per_request_us_first_half: firstHalfCpu,
  cpu_per_request_us_second_half: secondHalfCpu,
  rss_growth_second_half_mb: round(samples.at(-1).rss_mb - middle.rss_mb, 1),
  max_growth_mb: MAX_GROWTH_MB,
  flat,
  spans_dropped: dropped,
  statuses,
  unexpected,
};
mkdirSync(join(here, 'results'), { recursive: true });
const file = join(here, 'results', `soak-${report.when.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\n${REQUESTS} requests in ${report.seconds} s (${report.requests_per_second} req/s), ${dropped} spans dropped`);
for (const [key, count] of Object.entries(statuses).sort()) console.log(`  ${key}: ${count}`);
const firstTenth = samples[SAMPLES / 10];
console.log(`heap after the first tenth, the middle, the end: ${firstTenth.heap_used_mb}, ${middle.heap_used_mb}, ${samples.at(-1).heap_used_mb} MB`);
console.log(`second half: the heap's trend ${growth >= 0 ? '+' : ''}${growth} MB (samples within ${swing} MB of each other); ${flat ? 'flat' : `NOT flat (bound ${MAX_GROWTH_MB} MB)`}`);
console.log(`RSS after the first tenth, the middle, the end: ${firstTenth.rss_mb}, ${middle.rss_mb}, ${samples.at(-1).rss_mb} MB`);
console.log(`CPU per request, first half after its first tenth and second half: ${firstHalfCpu} and ${secondHalfCpu} µs`);
if (Object.keys(unexpected).length > 0) console.log(`unexpected: ${JSON.stringify(unexpected)}`);
console.log(`report: ${file}`);
process.exit(flat && Object.keys(unexpected).length === 0 ? 0 : 1);
