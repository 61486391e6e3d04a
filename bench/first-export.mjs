// What a process pays around its first metric export, under steady load: CPU per second before and
// after it, and (with --deopts) the functions V8 deoptimised then. A one-off cost like this lands in
// whichever bench segment is running a minute after the participant started (the default export
// interval), so a run's CPU figures carry it where a long-running sidecar would not
// (docs/performance.md, "Issue 25, eighteenth round").
//
// Each participant in turn, alone: a fresh process (OTEL_METRIC_EXPORT_INTERVAL=--interval ms),
// 5,000 requests to warm it, then --rate req/s for --seconds while its CPU is read from /proc every
// second. Prints the CPU per second of the 8 s before the first export and of the 8 s from it,
// and the deoptimisations in those 8 s when --deopts (V8's --trace-deopt, which costs CPU of its
// own: read the two apart).
//   node bench/first-export.mjs [--only on,sdkfloor] [--baseline DIR] [--rate 200] [--seconds 40]
//                               [--interval 15000] [--deopts]
// --baseline DIR adds "base": tracing on from the build in DIR (another commit's dist/).
// Needs `npm run build` first.
import { fixedRate, runCount } from './load.mjs';
import { cpuMs, start, startSdkFloor, startSidegate } from './processes.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const RATE = Number(option('rate', 200));
const SECONDS = Number(option('seconds', 40));
const INTERVAL = Number(option('interval', 15000));
const DEOPTS = args.includes('--deopts');
const BASELINE = option('baseline', undefined);
const ONLY = option('only', 'on').split(',');
if (BASELINE && !ONLY.includes('base')) ONLY.push('base');
/** The window compared on each side of the first export, in seconds. */
const WINDOW = 8;

const sink = await start('child.mjs', ['sink']);
const emulator = await start('child.mjs', ['emulator']);
const metrics = { OTEL_METRIC_EXPORT_INTERVAL: String(INTERVAL) };
const flags = DEOPTS ? ['--trace-deopt'] : [];
const starters = {
  on: () => startSidegate(emulator.url, { ...metrics, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }, flags),
  base: () => startSidegate(emulator.url, { ...metrics, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, BENCH_DIST: BASELINE }, flags),
  sdkfloor: () => startSdkFloor(emulator.url, sink.url, metrics),
};

/** A difference with its sign: "+34", "−10". */
const signed = (n) => (n < 0 ? `−${Math.abs(n).toFixed(0)}` : `+${n.toFixed(0)}`);
const mean = (xs) => (xs.length === 0 ? NaN : xs.reduce((sum, x) => sum + x, 0) / xs.length);

for (const key of ONLY) {
  const started = performance.now();
  const p = await starters[key]();
  // The first export is due INTERVAL ms after the meter provider started, about when the process
  // said it listens; read relative to that.
  const exportAt = started + INTERVAL;
  const deopts = [];
  p.child.stdout.on('data', (data) => {
    const now = performance.now();
    for (const line of String(data).split('\n')) {
      const fn = /\[bailout .*?deoptimizing [^<]*<JSFunction ([^ >]+)/.exec(line);
      if (fn) deopts.push({ at: now, fn: fn[1] });
    }
  });
  await runCount(p.json, 5000);
  const perSecond = [];
  let before = cpuMs(p.pid);
  const sampler = setInterval(() => {
    const now = cpuMs(p.pid);
    perSecond.push({ at: performance.now(), ms: now - before });
    before = now;
  }, 1000);
  await fixedRate({ targets: [p.json], ratePerSecond: RATE, seconds: SECONDS });
  clearInterval(sampler);
  const pre = perSecond.filter((s) => s.at > exportAt - WINDOW * 1000 && s.at <= exportAt).map((s) => s.ms);
  const post = perSecond.filter((s) => s.at > exportAt && s.at <= exportAt + WINDOW * 1000).map((s) => s.ms);
  const late = perSecond.filter((s) => s.at > exportAt + WINDOW * 1000).map((s) => s.ms);
  const inWindow = deopts.filter((d) => d.at > exportAt && d.at <= exportAt + WINDOW * 1000);
  console.log(
    `${key.padEnd(9)} CPU ms/s: ${WINDOW} s before the first export ${mean(pre).toFixed(0)}, ${WINDOW} s from it ${mean(post).toFixed(0)}` +
      ` (${signed(mean(post) - mean(pre))} ms/s, ${signed((mean(post) - mean(pre)) * post.length)} ms in all), after that ${mean(late).toFixed(0)}` +
      (DEOPTS ? `; deoptimisations in those ${WINDOW} s: ${inWindow.length} (${[...new Set(inWindow.map((d) => d.fn))].slice(0, 12).join(', ')})` : ''),
  );
  console.log(`          each second: ${perSecond.map((s) => `${((s.at - exportAt) / 1000).toFixed(0)}:${s.ms}`).join(' ')}`);
  p.child.kill('SIGTERM');
}
sink.child.kill('SIGTERM');
emulator.child.kill('SIGTERM');
