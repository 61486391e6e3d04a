// Where one request's wall time goes between the client's request and the answer, for sidegate
// or the floor: the participant runs in this process (the emulator in its own), and Node's and
// undici's diagnostics channels time each request's phases at a fixed rate after a run-in:
//   request start → upstream request created → its headers written → upstream answered (headers)
//   → upstream body done → response finished (and, for streams, upstream headers → first write).
// Medians in µs. The load generator shares the process, so absolute figures are higher than the
// bench's; compare participants measured the same way.
//   node [--single-threaded-gc --no-allocation-site-pretenuring] bench/phases.mjs
//        [--floor] [--stream] [--rate 200] [--seconds 5]     (tracing off; TRACING=on for on)
// Needs `npm run build` first.
import dc from 'node:diagnostics_channel';
import { fixedRate, runIn } from './load.mjs';
import { chatBody, chatStreamBody, GATEWAY_KEY, sidegateHeaders, start } from './processes.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const FLOOR = args.includes('--floor');
const STREAM = args.includes('--stream');
const RATE = Number(option('rate', 200));
const SECONDS = Number(option('seconds', 5));
process.env.OTEL_SDK_DISABLED = process.env.TRACING === 'on' ? 'false' : 'true';

const emulator = await start('child.mjs', ['emulator']);
let url;
if (FLOOR) {
  // floor.mjs reads its argv and prints {"url": …} when it listens
  const write = process.stdout.write.bind(process.stdout);
  url = await new Promise((resolve) => {
    process.stdout.write = (chunk, ...rest) => {
      const line = String(chunk);
      if (line.startsWith('{"url"')) {
        process.stdout.write = write;
        resolve(JSON.parse(line).url);
        return true;
      }
      return write(chunk, ...rest);
    };
    process.argv = [process.argv[0], new URL('./floor.mjs', import.meta.url).pathname, emulator.url, '128'];
    import('./floor.mjs');
  });
} else {
  const { startGateway } = await import('../dist/gateway/start-gateway.js');
  const { createTelemetry } = await import('../dist/telemetry/create-telemetry.js');
  const telemetry = createTelemetry({ env: process.env, logger: () => {} });
  url = (await startGateway({ port: 0, geminiBaseUrl: emulator.url, apiKeys: [GATEWAY_KEY] }, { telemetry, log: () => {} })).url;
}

const PHASES = ['request start → upstream request created', '→ its headers written', '→ upstream headers', '→ upstream body done', 'body done → response finished'];
const samples = Object.fromEntries([...PHASES, 'upstream headers → first write'].map((k) => [k, []]));
let recording = false;
let current;
const byResponse = new WeakMap();
const byUpstream = new WeakMap();
dc.subscribe('http.server.request.start', ({ response }) => {
  if (!recording) return;
  const t = { start: performance.now() };
  byResponse.set(response, t);
  current = t;
  const write = response.write;
  response.write = function (...a) {
    t.firstWrite ??= performance.now();
    return write.apply(this, a);
  };
});
dc.subscribe('undici:request:create', ({ request }) => {
  if (!recording || current === undefined || current.created !== undefined) return;
  current.created = performance.now();
  byUpstream.set(request, current);
});
const mark = (field) => ({ request }) => {
  const t = byUpstream.get(request);
  if (t) t[field] ??= performance.now();
};
dc.subscribe('undici:client:sendHeaders', mark('sent'));
dc.subscribe('undici:request:headers', mark('headers'));
dc.subscribe('undici:request:trailers', mark('done'));
dc.subscribe('http.server.response.finish', ({ response }) => {
  const t = byResponse.get(response);
  if (t?.done === undefined) return;
  const times = [t.start, t.created, t.sent, t.headers, t.done, performance.now()];
  PHASES.forEach((k, i) => samples[k].push(times[i + 1] - times[i]));
  if (STREAM && t.firstWrite !== undefined) samples['upstream headers → first write'].push(t.firstWrite - t.headers);
});

const target = { origin: url, path: '/v1/chat/completions', headers: FLOOR ? { 'content-type': 'application/json' } : sidegateHeaders, body: STREAM ? chatStreamBody : chatBody };
await runIn(target, 3000);
recording = true;
const [result] = await fixedRate({ targets: [target], ratePerSecond: RATE, seconds: SECONDS });
recording = false;
const median = (a) => Math.round(Float64Array.from(a).sort()[a.length >> 1] * 1000);
console.log(
  `${FLOOR ? 'floor' : `sidegate, tracing ${process.env.TRACING === 'on' ? 'on' : 'off'}`}, ${STREAM ? 'streams' : 'JSON'} at ${RATE} req/s: ` +
    `${result.latencies.length} requests, client p50 ${median(result.latencies.map((us) => us / 1000))} µs; medians (µs):`,
);
for (const [k, v] of Object.entries(samples)) if (v.length > 0) console.log(`  ${String(median(v)).padStart(5)}  ${k}`);
emulator.child.kill();
process.exit(0);
