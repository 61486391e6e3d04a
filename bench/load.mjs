// Load generation over undici keep-alive pools. Latencies in microseconds.
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

// A request that takes longer than this has failed; it keeps a stalled participant from stalling the run.
const REQUEST_TIMEOUT_MS = 30_000;

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)];
}

export function summarize(latenciesUs) {
  const sorted = Float64Array.from(latenciesUs).sort();
  return {
    count: sorted.length,
    p50_ms: percentile(sorted, 50) / 1000,
    p90_ms: percentile(sorted, 90) / 1000,
    p99_ms: percentile(sorted, 99) / 1000,
    max_ms: sorted[sorted.length - 1] / 1000,
  };
}

export function newPool(origin, connections) {
  return new Pool(origin, { connections, pipelining: 1, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS });
}

/**
 * One request; resolves with [latencyUs, status, ttfbUs]. `ttfbUs` is the time to the first body
 * byte (for a stream: its first event), which can be later than the response headers.
 */
export async function once(pool, target) {
  const start = process.hrtime.bigint();
  const res = await pool.request({ method: 'POST', path: target.path, headers: target.headers, body: target.body });
  let ttfb;
  for await (const _ of res.body) {
    ttfb ??= Number(process.hrtime.bigint() - start) / 1000;
  }
  const total = Number(process.hrtime.bigint() - start) / 1000;
  return [total, res.statusCode, ttfb ?? total];
}

/**
 * The text of the `i`th chunk of a paced stream (run.mjs): the client finds it in whatever framing
 * reaches it (Gemini SSE from the upstream, OpenAI SSE from a gateway), so it can tell when each
 * upstream chunk arrived even when a gateway splits or merges frames.
 */
export const chunkMarker = (i) => `~c${String(i).padStart(3, '0')}~`;
const MARKER = /~c(\d{3})~/g;

/**
 * One paced stream; resolves with [latencyUs, status, ttfbUs, gapsUs]: `gapsUs[i - 1]` is the time
 * between the arrival of chunk i − 1 and chunk i (by their markers).
 */
export async function onceChunks(pool, target) {
  const start = process.hrtime.bigint();
  const res = await pool.request({ method: 'POST', path: target.path, headers: target.headers, body: target.body });
  let ttfb;
  const arrivals = [];
  let carry = '';
  for await (const piece of res.body) {
    const now = Number(process.hrtime.bigint() - start) / 1000;
    ttfb ??= now;
    const text = carry + piece.toString('latin1');
    for (const m of text.matchAll(MARKER)) arrivals[Number(m[1])] ??= now;
    carry = text.slice(-6); // a marker cut between two pieces is found in the next one
  }
  const total = Number(process.hrtime.bigint() - start) / 1000;
  const gaps = [];
  for (let i = 1; i < arrivals.length; i++) if (arrivals[i] !== undefined && arrivals[i - 1] !== undefined) gaps.push(arrivals[i] - arrivals[i - 1]);
  return [total, res.statusCode, ttfb ?? total, gaps];
}

/**
 * How long a fixed-rate segment's start lasts: the requests sent after it are also kept apart
 * (`settledLatencies`), because the first requests after the bench's pause run every process's
 * path cold and queue behind each other (docs/performance.md, thirtieth round), and a p99 of the
 * rest says how much of a segment's tail that start is.
 */
export const SEGMENT_START_MS = 500;

function emptyResult() {
  return { latencies: [], settledLatencies: [], ttfbs: [], gaps: [], errors: 0, statuses: {} };
}

function record(result, [us, status, ttfb, gaps], sentAtMs = 0) {
  result.statuses[status] = (result.statuses[status] ?? 0) + 1;
  if (status === 200) {
    result.latencies.push(us);
    if (sentAtMs >= SEGMENT_START_MS) result.settledLatencies.push(us);
    result.ttfbs.push(ttfb);
    if (gaps) result.gaps.push(...gaps);
  } else result.errors++;
}

/**
 * Open loop at a fixed rate (requests are sent on schedule whether or not earlier ones finished),
 * several targets interleaved so they see the same machine conditions. Requests still unanswered
 * `drainMs` after the last one was sent are cut and counted as `unfinished`: a participant that
 * cannot keep up is reported as saturated instead of stretching the run by its backlog. A target
 * with `paced: true` is a paced stream (`onceChunks`): its inter-chunk gaps are collected too.
 */
export async function fixedRate({ targets, ratePerSecond, seconds, connections = 64, drainMs = 5000 }) {
  const pools = targets.map((t) => newPool(t.origin, connections));
  const results = targets.map(() => ({ ...emptyResult(), unfinished: 0 }));
  const total = Math.floor(ratePerSecond * seconds);
  const intervalMs = 1000 / ratePerSecond;
  const startedAt = performance.now();
  const inflight = [];
  let cut = false;
  for (let i = 0; i < total; i++) {
    const due = startedAt + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const k = i % targets.length;
    const sentAtMs = performance.now() - startedAt;
    inflight.push(
      (targets[k].paced ? onceChunks : once)(pools[k], targets[k]).then(
        (r) => record(results[k], r, sentAtMs),
        () => {
          if (cut) results[k].unfinished++;
          else results[k].errors++;
        },
      ),
    );
  }
  let timer;
  const drained = await Promise.race([
    Promise.all(inflight).then(() => true),
    new Promise((r) => (timer = setTimeout(() => r(false), drainMs))),
  ]);
  clearTimeout(timer);
  if (!drained) {
    cut = true;
    await Promise.all(pools.map((p) => p.destroy()));
    await Promise.all(inflight);
  } else await Promise.all(pools.map((p) => p.close()));
  return results;
}

/** Closed loop: `concurrency` workers back to back for `seconds`; returns requests per second. */
export async function maxThroughput({ target, seconds, concurrency = 32 }) {
  const pool = newPool(target.origin, concurrency);
  const deadline = performance.now() + seconds * 1000;
  const result = emptyResult();
  const worker = async () => {
    while (performance.now() < deadline) {
      try {
        record(result, await once(pool, target));
      } catch {
        result.errors++;
      }
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - began) / 1000;
  await pool.close();
  return { rps: result.latencies.length / elapsed, ok: result.latencies.length, errors: result.errors, ...summarize(result.latencies), seconds: elapsed, latencies: result.latencies };
}

/**
 * `npm run bench`'s run-in before a measured segment: `n` requests that are not measured, then a
 * pause, so the segment holds neither an idle process's re-tiering nor the run-in's own spans and
 * garbage (docs/performance.md, "Issue 25, third round").
 */
export const SETTLE_MS = 1000;
export async function runIn(target, n) {
  await runCount(target, n);
  await sleep(SETTLE_MS);
}

/** `n` requests over `concurrency` connections, back to back. */
export async function runCount(target, n, concurrency = 32) {
  const pool = newPool(target.origin, concurrency);
  let next = 0;
  let errors = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      try {
        const res = await pool.request({ method: 'POST', path: target.path, headers: target.headers, body: target.body });
        await res.body.dump();
        if (res.statusCode !== 200) errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  await pool.close();
  return errors;
}

/**
 * Opens `n` streams at once. Samples `sample()` (memory) every 100 ms and when the last stream
 * delivered its first event; returns the sample taken with the most streams open (each counted
 * from its first event to its end), then waits for every stream to end.
 */
export async function openStreams({ target, n, timeoutMs, sample }) {
  const pool = newPool(target.origin, n);
  let firstBytes = 0;
  let open = 0;
  let best = { open: -1 };
  const take = () => {
    if (open >= best.open) best = { open, ms_after_start: Math.round(performance.now() - began), ...sample() };
  };
  const statuses = {};
  const one = async () => {
    let counted = false;
    try {
      const res = await pool.request({ method: 'POST', path: target.path, headers: target.headers, body: target.body });
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      for await (const _ of res.body) {
        if (!counted) {
          counted = true;
          open++;
          if (++firstBytes === n) take();
        }
      }
    } catch {
      statuses.error = (statuses.error ?? 0) + 1;
    } finally {
      if (counted) open--;
    }
  };
  const began = performance.now();
  const ticker = setInterval(take, 100);
  const all = Array.from({ length: n }, one);
  const timer = setTimeout(() => clearInterval(ticker), timeoutMs);
  await Promise.all(all);
  clearInterval(ticker);
  clearTimeout(timer);
  await pool.close();
  return { ...best, first_bytes: firstBytes, statuses };
}
