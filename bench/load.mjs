// Load generation over undici keep-alive pools. Latencies in microseconds.
import { Pool } from 'undici';

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

/** One request; resolves with [latencyUs, status]. */
async function once(pool, path, headers, body) {
  const start = process.hrtime.bigint();
  const res = await pool.request({ method: 'POST', path, headers, body });
  await res.body.dump();
  return [Number(process.hrtime.bigint() - start) / 1000, res.statusCode];
}

/**
 * Open loop at a fixed rate (requests are sent on schedule whether or not earlier ones finished),
 * several targets interleaved so they see the same machine conditions.
 */
export async function fixedRate({ targets, ratePerSecond, seconds, connections = 64 }) {
  const pools = targets.map((t) => new Pool(t.origin, { connections, pipelining: 1 }));
  const results = targets.map(() => ({ latencies: [], errors: 0, statuses: {} }));
  const total = Math.floor(ratePerSecond * seconds);
  const intervalMs = 1000 / ratePerSecond;
  const startedAt = performance.now();
  const inflight = [];
  for (let i = 0; i < total; i++) {
    const due = startedAt + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const k = i % targets.length;
    const t = targets[k];
    inflight.push(
      once(pools[k], t.path, t.headers, t.body).then(
        ([us, status]) => {
          results[k].statuses[status] = (results[k].statuses[status] ?? 0) + 1;
          if (status === 200) results[k].latencies.push(us);
          else results[k].errors++;
        },
        () => {
          results[k].errors++;
        },
      ),
    );
  }
  await Promise.all(inflight);
  await Promise.all(pools.map((p) => p.close()));
  return results;
}

/** Closed loop: `concurrency` workers back to back for `seconds`; returns requests per second. */
export async function maxThroughput({ target, seconds, concurrency = 64 }) {
  const pool = new Pool(target.origin, { connections: concurrency, pipelining: 1 });
  const deadline = performance.now() + seconds * 1000;
  let ok = 0;
  let errors = 0;
  const latencies = [];
  const worker = async () => {
    while (performance.now() < deadline) {
      try {
        const [us, status] = await once(pool, target.path, target.headers, target.body);
        if (status === 200) {
          ok++;
          latencies.push(us);
        } else errors++;
      } catch {
        errors++;
      }
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - began) / 1000;
  await pool.close();
  return { rps: ok / elapsed, ok, errors, ...summarize(latencies) };
}
