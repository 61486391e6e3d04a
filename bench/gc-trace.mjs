// What the young generation keeps at max throughput: each arm in a fresh process, run in for 2 s,
// then a closed-loop segment (32 connections, as `npm run bench`'s max) with V8's --trace-gc-nvp,
// and per arm: throughput, CPU per request, scavenges (pause, how many ran while incremental
// marking was under way), the bytes each kept in the young generation (what a scavenge copies, so
// what its pause grows with) and the bytes they promoted to the old generation, per scavenge and per
// request (docs/performance.md, "Issue 25, fifth round").
//   node bench/gc-trace.mjs [--arms on,off] [--seconds 4]
// An arm is `on` or `off`, then optionally `:K=V;K=V` (more environment for sidegate) and
// `:FLAGS` (more V8/Node flags, after the shipped ones), e.g.
//   node bench/gc-trace.mjs --arms "on,on:OTEL_TRACES_SAMPLER=always_off,off::--max-semi-space-size=64"
// `--flip`: three segments per arm instead of one, the second with a full collection forced early
// in it (global.gc(), under load), and the bytes promoted per request in each: whether one full
// collection under load puts the process in a state where every request's objects are promoted,
// and keeps it there (docs/performance.md, "Issue 25, ninth round"). Arms may then be `floor` too.
// Needs `npm run build` first.
import { maxThroughput } from './load.mjs';
import { ask, cpuMs, start, startFloor, startSidegate } from './processes.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const ARMS = option('arms', 'on,off').split(',');
const SECONDS = Number(option('seconds', 4));
const FLIP = args.includes('--flip');

/** `--trace-gc-nvp` lines as objects: `gc` is `s` for a scavenge, `mc`/`ms` for full collections. */
function nvp(text) {
  return text
    .split('\n')
    .filter((line) => line.includes(' gc='))
    .map((line) => Object.fromEntries(line.split(/\s+/).filter((t) => t.includes('=')).map((t) => t.split('='))));
}

const sum = (list, key) => list.reduce((s, g) => s + Number(g[key]), 0);

const sink = await start('child.mjs', ['sink']);
const emulator = await start('child.mjs', ['emulator']);
for (const arm of ARMS) {
  const [kind, envText = '', flagText = ''] = arm.split(':');
  const env = kind === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : { OTEL_SDK_DISABLED: 'true' };
  for (const kv of envText.split(';').filter(Boolean)) {
    const [k, v] = kv.split('=');
    env[k] = v;
  }
  const flags = ['--trace-gc-nvp', ...flagText.split(' ').filter(Boolean)];
  const p = kind === 'floor' ? await startFloor(emulator.url, 128, {}, flags) : await startSidegate(emulator.url, env, flags);
  await maxThroughput({ target: p.json, seconds: 2 });
  let out = [];
  p.child.stdout.on('data', (d) => out.push(String(d)));
  const segment = async (forceFullGc) => {
    out = [];
    const before = cpuMs(p.pid);
    const load = maxThroughput({ target: p.json, seconds: SECONDS });
    if (forceFullGc) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await ask(p.child, 'mem', { gc: true });
    }
    const r = await load;
    const cpu = cpuMs(p.pid) - before;
    const gcs = nvp(out.join(''));
    const scavenges = gcs.filter((g) => g.gc === 's');
    return { r, cpu, gcs, scavenges, promoted: sum(scavenges, 'promoted') };
  };
  if (FLIP) {
    const parts = [];
    for (const forced of [false, true, false]) {
      const { r, cpu, gcs, scavenges, promoted } = await segment(forced);
      parts.push(
        `${forced ? 'full GC forced: ' : ''}${Math.round(r.rps)} req/s, ${Math.round((cpu * 1000) / r.ok)} µs/req, ` +
          `${(promoted / r.ok / 1024).toFixed(2)} KiB promoted per request, ${gcs.length - scavenges.length} full`,
      );
    }
    console.log(`${arm}: ${parts.join(' | ')}`);
  } else {
    const { r, cpu, gcs, scavenges, promoted } = await segment(false);
    const marking = scavenges.filter((g) => Number(g['incremental.steps_count']) > 0).length;
    const n = Math.max(1, scavenges.length);
    console.log(
      `${arm}: ${Math.round(r.rps)} req/s, ${Math.round((cpu * 1000) / r.ok)} µs/req; ` +
        `${scavenges.length} scavenges (${marking} during marking), ${(sum(scavenges, 'pause') / n).toFixed(2)} ms each, ` +
        `${Math.round(sum(scavenges, 'new_space_survived') / n / 1024)} KiB survived each, ${Math.round(promoted / n / 1024)} KiB promoted each, ${(promoted / r.ok / 1024).toFixed(2)} KiB per request; ` +
        `${gcs.length - scavenges.length} full collections`,
    );
  }
  p.child.kill('SIGTERM');
}
for (const c of [emulator.child, sink.child]) c.kill('SIGTERM');
