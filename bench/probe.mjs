// IPC probe shared by the bench's own processes (gateway, floor, emulator, sink): answers
//   {type:'mem', gc}  → process.memoryUsage() (after a full GC when gc is true and --expose-gc is on)
//   {type:'probe'}    → event-loop delay and GC time since the last probe, then resets them
//   {type:'cpuprof', action:'start'|'stop', file} → a V8 CPU profile of exactly the span between the
//                       two messages (node:inspector, in process), written to `file` on stop
//   {type:'allocprof', action:'start'|'stop', file} → V8's sampling heap profile of every allocation
//                       between the two messages, collected or not (what the young generation churns
//                       through, which live-heap snapshots cannot show), written to `file` on stop
//   {type:'async'}    → async resources created since start, by type (PROMISE, Timeout, TickObject…),
//                       counted only with BENCH_COUNT_ASYNC=1 (bench/async-resources.mjs): an
//                       async_hooks init hook slows every promise, so nothing else runs with it
// The event-loop monitor and GC observer run only with BENCH_PROBE=1 (`npm run bench -- --profile`):
// a 1 ms loop timer costs CPU of its own, so the ordinary run leaves them off.
import { createHook } from 'node:async_hooks';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay, PerformanceObserver, constants } from 'node:perf_hooks';

const GC_KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark_sweep',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental_marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak_callbacks',
};

/** The inspector calls that start and stop each profile the probe can take. */
const PROFILERS = {
  cpuprof: {
    start: () => [['Profiler.enable'], ['Profiler.setSamplingInterval', { interval: 250 }], ['Profiler.start']],
    stop: 'Profiler.stop',
  },
  allocprof: {
    // promotedOnly (allocations.mjs --promoted): leave out what scavenges collect.
    start: (msg) => [
      ['HeapProfiler.enable'],
      ['HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !msg.promotedOnly }],
    ],
    stop: 'HeapProfiler.stopSampling',
  },
};

export function installProbe() {
  // Every bench process is forked with an IPC channel: once it closes, the script that forked this
  // process is gone (finished, crashed or killed), and nothing is left to measure or stop it.
  process.once('disconnect', () => process.exit(0));
  const asyncCreated = {};
  if (process.env.BENCH_COUNT_ASYNC === '1') {
    createHook({ init: (_id, type) => void (asyncCreated[type] = (asyncCreated[type] ?? 0) + 1) }).enable();
  }
  const deep = process.env.BENCH_PROBE === '1';
  const eld = deep ? monitorEventLoopDelay({ resolution: 1 }) : undefined;
  let gc = {};
  if (deep) {
    eld.enable();
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = GC_KINDS[entry.detail?.kind] ?? 'other';
        const k = (gc[kind] ??= { count: 0, ms: 0, max_ms: 0 });
        k.count++;
        k.ms += entry.duration;
        k.max_ms = Math.max(k.max_ms, entry.duration);
      }
    }).observe({ entryTypes: ['gc'] });
  }
  let session;
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  process.on('message', async (msg) => {
    const profiler = PROFILERS[msg?.type];
    if (profiler !== undefined) {
      if (msg.action === 'start') {
        session = new Session();
        session.connect();
        for (const [method, params] of profiler.start(msg)) await post(method, params);
      } else {
        if (msg.promotedOnly) {
          // Let the requests in flight finish, then scavenge twice: what is still young and alive
          // is promoted, and what died young leaves the profile.
          await new Promise((resolve) => setTimeout(resolve, 300));
          globalThis.gc?.({ type: 'minor' });
          globalThis.gc?.({ type: 'minor' });
        }
        const { profile } = await post(profiler.stop);
        session.disconnect();
        writeFileSync(msg.file, JSON.stringify(profile));
      }
      process.send?.({ type: msg.type });
      return;
    }
    if (msg?.type === 'async') {
      process.send?.({ type: 'async', created: { ...asyncCreated } });
    } else if (msg?.type === 'mem') {
      if (msg.gc && global.gc) global.gc();
      process.send?.({ type: 'mem', ...process.memoryUsage() });
    } else if (msg?.type === 'probe') {
      const ms = (ns) => Math.round(ns / 1e3) / 1e3;
      const out = eld
        ? {
            event_loop_delay_ms: { p50: ms(eld.percentile(50)), p99: ms(eld.percentile(99)), max: ms(eld.max), mean: ms(eld.mean) },
            gc,
          }
        : {};
      eld?.reset();
      gc = {};
      process.send?.({ type: 'probe', ...out });
    }
  });
}
