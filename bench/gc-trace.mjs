// What the young generation keeps at max throughput: each arm in a fresh process, run in for 2 s,
// then a closed-loop segment (32 connections, as `npm run bench`'s max) with V8's --trace-gc-nvp,
// and per arm: throughput, CPU per request, scavenges (pause, how many ran while incremental
// marking was under way) and the bytes they promoted to the old generation, per scavenge and per
// request (docs/performance.md, "Issue 25, fifth round").
//   node bench/gc-trace.mjs [--arms on,off] [--seconds 4]
// An arm is `on` or `off`, then optionally `:K=V;K=V` (more environment for sidegate) and
// `:FLAGS` (more V8/Node flags, after the shipped ones), e.g.
//   node bench/gc-trace.mjs --arms "on,on:OTEL_TRACES_SAMPLER=always_off,off::--max-semi-space-size=64"
// Needs `npm run build` first.
import { maxThroughput } from './load.mjs';
import { cpuMs, start, startSidegate } from './processes.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const ARMS = option('arms', 'on,off').split(',');
const SECONDS = Number(option('seconds', 4));

/** `--trace-gc-nvp` lines as objects: `gc` is `s` for a scavenge, `mc`/`ms` for full collections. */
function nvp(text) {
  return text
    .split('\n')
    .filter((line) => line.includes(' gc='))
    .map((line) => Object.fromEntries(line.split(/\s+/).filter((t) => t.includes('=')).map((t) => t.split('='))));
}

const sink = await start('child.mjs', ['sink']);
const emulator = await start('child.mjs', ['emulator']);
for (const arm of ARMS) {
  const [kind, envText = '', flagText = ''] = arm.split(':');
  const env = kind === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : { OTEL_SDK_DISABLED: 'true' };
  for (const kv of envText.split(';').filter(Boolean)) {
    const [k, v] = kv.split('=');
    env[k] = v;
  }
  const p = await startSidegate(emulator.url, env, ['--trace-gc-nvp', ...flagText.split(' ').filter(Boolean)]);
  await maxThroughput({ target: p.json, seconds: 2 });
  const out = [];
  p.child.stdout.on('data', (d) => out.push(String(d)));
  const before = cpuMs(p.pid);
  const r = await maxThroughput({ target: p.json, seconds: SECONDS });
  const cpu = cpuMs(p.pid) - before;
  p.child.kill('SIGTERM');
  const gcs = nvp(out.join(''));
  const scavenges = gcs.filter((g) => g.gc === 's');
  const sum = (list, key) => list.reduce((s, g) => s + Number(g[key]), 0);
  const promoted = sum(scavenges, 'promoted');
  const marking = scavenges.filter((g) => Number(g['incremental.steps_count']) > 0).length;
  const n = Math.max(1, scavenges.length);
  console.log(
    `${arm}: ${Math.round(r.rps)} req/s, ${Math.round((cpu * 1000) / r.ok)} µs/req; ` +
      `${scavenges.length} scavenges (${marking} during marking), ${(sum(scavenges, 'pause') / n).toFixed(2)} ms each, ` +
      `${Math.round(promoted / n / 1024)} KiB promoted each, ${(promoted / r.ok / 1024).toFixed(2)} KiB per request; ` +
      `${gcs.length - scavenges.length} full collections`,
  );
}
for (const c of [emulator.child, sink.child]) c.kill('SIGTERM');
