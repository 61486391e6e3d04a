// The outage rows of issue 24: circuit breaking per target and the retry budget, measured with
// real processes. Each row starts its own gateway with the default target-health settings (the
// other rows' gateway runs with SIDEGATE_CIRCUIT_BREAKER=false, since they fail one target again
// and again and measure how each failure is answered), and its own emulator for target A where
// A must answer differently from B (the run's emulator). Traffic is open-loop at a fixed rate.
//
// What the client sees tells which targets a request reached: `x-gateway-skipped-targets` (A
// skipped, nothing sent), `x-gateway-last-used-option-index` (who answered) and
// `x-gateway-retry-attempt-count` (tries before the answer). A's own count of requests comes
// from the gateway's /metrics (attempts per server.port) or from A's emulator.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chatBody, chatHeaders, isEnvelope, send, sleep } from './lib/client.mjs';
import { deadPort, startEmulator, startGateway } from './lib/processes.mjs';

const RATE = 50; // requests per second, as in the issue
const BREAKER = { failureThreshold: 5, cooldownMs: 5000, maxCooldownMs: 60_000, jitter: 0.2 };

const config = (c) => ({ ...chatHeaders, 'x-gateway-config': JSON.stringify(c) });
const A_THEN_B = (aUrl, extra = {}) =>
  config({ strategy: { mode: 'fallback' }, retry: { attempts: 3 }, ...extra, targets: [{ custom_host: aUrl }, {}] });
const B_ALONE = config({ retry: { attempts: 3 } });

/** Calls `fn(i, t0)` every 1000/rate ms for `ms` (open loop: a slow answer does not delay the next send). */
async function paced(ms, fn, rate = RATE) {
  const t0 = performance.now();
  const pending = [];
  for (let i = 0; ; i++) {
    const at = t0 + (i * 1000) / rate;
    if (at - t0 >= ms) break;
    const wait = at - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(fn(i, t0));
  }
  return { t0, answers: await Promise.all(pending) };
}

/** `send`, with its start, end (ms since `t0`) and duration on the answer. */
async function timedSend(base, options, t0) {
  const start = performance.now();
  const a = await send(base, options);
  const end = performance.now();
  return Object.assign(a, { start: start - t0, end: end - t0, ms: end - start });
}

function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const f1 = (v) => (Number.isFinite(v) ? v.toFixed(1) : String(v));
/** The machine's 1-minute load average (2 vCPU shared with other work: latency figures depend on it). */
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

/** Which targets a request of an A-then-B config reached, read from the answer's headers. */
function route(a) {
  const skipped = Number(a.headers?.['x-gateway-skipped-targets'] ?? 0);
  const last = a.headers?.['x-gateway-last-used-option-index'];
  return { skipped, byA: last === 'config.targets[0]', reachedA: skipped === 0 && a.status !== undefined };
}

/** Attempts the gateway made toward `port` so far (the attempt-duration histogram's count on /metrics). */
async function attemptsTo(gw, port) {
  const text = (await send(gw.url, { method: 'GET', path: '/metrics', headers: {}, timeoutMs: 10_000 })).text ?? '';
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('gen_ai_client_operation_duration_count{') && line.includes(`server_port="${port}"`)) total += Number(line.split(' ').at(-1));
  }
  return total;
}

/**
 * The longest cooldown the breaker can be in after `ms` of failed probes: the schedule doubles
 * from cooldown_ms, each spread by ±20 %; the fastest schedule reaches the latest (longest) window.
 */
function longestCooldownAfter(ms) {
  let elapsed = 0;
  let nominal = BREAKER.cooldownMs;
  for (;;) {
    const fastest = nominal * (1 - BREAKER.jitter);
    if (elapsed + fastest > ms) return Math.min(BREAKER.maxCooldownMs, nominal * (1 + BREAKER.jitter));
    elapsed += fastest;
    nominal = Math.min(BREAKER.maxCooldownMs, nominal * 2);
  }
}

/** At most this many probes fit in `ms` (the fastest cooldown schedule), plus the one that may be out. */
function mostProbesIn(ms) {
  let elapsed = 0;
  let nominal = BREAKER.cooldownMs;
  let probes = 0;
  for (;;) {
    elapsed += nominal * (1 - BREAKER.jitter);
    if (elapsed > ms) return probes + 1;
    probes += 1;
    nominal = Math.min(BREAKER.maxCooldownMs, nominal * 2);
  }
}

async function ownGateway(env, dir, logFile, name) {
  const own = { ...env, SIDEGATE_DATA_DIR: join(dir, `data-${name}`) };
  delete own.SIDEGATE_CIRCUIT_BREAKER; // the defaults, as users get them
  return startGateway(own, logFile);
}

export function targetHealthRows({ fast }) {
  const n = (quick, full) => (fast ? quick : full);
  return [
    {
      name: 'target A refuses connections, fallback B healthy (a) and A recovers (b)',
      fast: true,
      async run({ env, dir, logFile }) {
        const gw = await ownGateway(env, dir, logFile, 'outage');
        let aEmu;
        try {
          const aUrl = await deadPort();
          const aPort = Number(new URL(aUrl).port);
          const outageMs = n(12_000, 20_000);
          // Warm both paths, then B alone and A-then-B side by side through the whole outage:
          // the same gateway, the same moments, so the comparison is not the machine's noise.
          await paced(1000, () => send(gw.url, { body: chatBody(), headers: B_ALONE }));
          const both = await paced(outageMs, (i, t0) =>
            Promise.all([timedSend(gw.url, { body: chatBody(), headers: A_THEN_B(aUrl) }, t0), timedSend(gw.url, { body: chatBody(), headers: B_ALONE }, t0)]).then(
              ([ab, b]) => Object.assign(ab, { alone: b, i }),
            ),
          );
          const outage = both.answers;
          const firstSkip = outage.find((a) => route(a).skipped > 0);
          const openedAt = firstSkip?.start ?? Infinity;
          const afterOpen = outage.filter((a) => a.start >= openedAt);
          const p99Outage = percentile(afterOpen.map((a) => a.ms), 99);
          const p99Alone = percentile(afterOpen.map((a) => a.alone.ms), 99);
          const p50Outage = percentile(afterOpen.map((a) => a.ms), 50);
          const p50Alone = percentile(afterOpen.map((a) => a.alone.ms), 50);
          const loadDuring = load();
          const firstFailures = outage.filter((a) => a.start < openedAt).length;
          const aAttempts = await attemptsTo(gw, aPort);
          const probes = aAttempts - BREAKER.failureThreshold;
          const openSeconds = (outageMs - openedAt) / 1000;
          const probeLimit = mostProbesIn(outageMs - openedAt);

          // (b) A comes back on its port; keep sending until A answers a request again.
          aEmu = await startEmulator(logFile, aPort);
          const recoveredAt = performance.now();
          const cap = longestCooldownAfter(outageMs) + 1000;
          let backAfterMs = Infinity;
          const recovery = [];
          for (let i = 0; performance.now() - recoveredAt < cap + 5000 && backAfterMs === Infinity; i++) {
            const start = performance.now();
            const a = await send(gw.url, { body: chatBody(), headers: A_THEN_B(aUrl) });
            recovery.push(a);
            if (route(a).byA) backAfterMs = start - recoveredAt;
            const wait = 1000 / RATE - (performance.now() - start);
            if (wait > 1) await sleep(wait);
          }
          const answers = [...outage, ...outage.map((a) => a.alone), ...recovery];
          const correct = answers.filter((a) => a.status === 200).length;
          const offTarget = !(p99Outage - p99Alone <= 1) || probes > probeLimit || !(backAfterMs <= cap);
          return {
            sent: answers.length,
            correct,
            lost: answers.filter((a) => a.lost !== undefined).length,
            offTarget,
            figures: { p99OutageMs: p99Outage, p99BAloneMs: p99Alone, p50OutageMs: p50Outage, p50BAloneMs: p50Alone, load: loadDuring, firstFailures, openedAtMs: openedAt, aAttempts, probes, openSeconds, probeLimit, backAfterMs, capMs: cap },
            note:
              `(a) ${RATE} req/s with retry.attempts 3 for ${outageMs / 1000} s: the breaker opened after ${firstFailures} requests (${f1(openedAt)} ms); ` +
              `after that p99 ${f1(p99Outage)} ms vs ${f1(p99Alone)} ms for B alone at the same moments (${p99Outage >= p99Alone ? '+' : ''}${f1(p99Outage - p99Alone)} ms; target ≤ 1 ms), ` +
              `p50 ${f1(p50Outage)} vs ${f1(p50Alone)} ms (load average ${loadDuring}); ` +
              `A got ${aAttempts} tries: the first ${BREAKER.failureThreshold} failures, then ${probes} probe(s) in ${f1(openSeconds)} s (${(probes / openSeconds).toFixed(2)}/s; target: probes only, ≤ ${probeLimit}). ` +
              `(b) A back: carrying traffic again after ${f1(backAfterMs / 1000)} s (target ≤ its last cooldown + one probe, ≤ ${f1(cap / 1000)} s)`,
          };
        } finally {
          await aEmu?.stop();
          await gw.stop();
        }
      },
    },
    {
      name: 'no fallback, A answering 503 (c)',
      fast: true,
      async run({ env, dir, logFile }) {
        const gw = await ownGateway(env, dir, logFile, 'fail-fast');
        const aEmu = await startEmulator(logFile);
        try {
          const seconds = n(6, 10);
          const overloaded = { status: 503, body: { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } } };
          await fetch(`${aEmu.url}/__emulator/replies`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(Array.from({ length: RATE * seconds * 4 + 50 }, () => overloaded)),
          });
          const headers = config({ custom_host: aEmu.url, retry: { attempts: 3 } });
          // Each fail-fast answer is timed next to a GET /healthz sent at the same moment: the
          // quickest thing the gateway answers, the machine's floor at that moment.
          const floors = [];
          const { answers } = await paced(seconds * 1000, (i, t0) =>
            Promise.all([
              timedSend(gw.url, { body: chatBody(), headers }, t0),
              timedSend(gw.url, { method: 'GET', path: '/healthz', headers: {} }, t0).then((h) => floors.push(h.ms)),
            ]).then(([a]) => a),
          );
          const loadDuring = load();
          const received = ((await (await fetch(`${aEmu.url}/__emulator/requests`)).json()) ?? []).length;
          const fastFails = answers.filter((a) => a.status === 503 && a.headers?.['x-gateway-skipped-targets'] === '1');
          const failFastOk = (a) => {
            try {
              return JSON.parse(a.text).error.code === 'all_targets_cooling_down' && Number(a.headers['retry-after']) >= 1;
            } catch {
              return false;
            }
          };
          const correct = answers.filter((a) => a.status === 503 && isEnvelope(a.text) && (!route(a).skipped || failFastOk(a))).length;
          const p99 = percentile(fastFails.map((a) => a.ms), 99);
          const max = Math.max(...fastFails.map((a) => a.ms));
          const p99Floor = percentile(floors, 99);
          const perRequest = received / answers.length;
          return {
            sent: answers.length,
            correct,
            lost: answers.filter((a) => a.lost !== undefined).length,
            // ≤ 5 ms, or (on a busy machine) no slower than /healthz at the same moments + 1 ms.
            offTarget: !(p99 <= 5 || p99 <= p99Floor + 1) || !(perRequest <= 1.2) || fastFails.length === 0,
            figures: { failFast: fastFails.length, p99FailFastMs: p99, maxFailFastMs: max, p99HealthzMs: p99Floor, load: loadDuring, aReceived: received, perClientRequest: perRequest },
            note:
              `${RATE} req/s for ${seconds} s, retry.attempts 3: ${fastFails.length} of ${answers.length} answered 503 all_targets_cooling_down with Retry-After, ` +
              `p99 ${f1(p99)} ms (max ${f1(max)}; target ≤ 5 ms; /healthz at the same moments p99 ${f1(p99Floor)} ms, load average ${loadDuring}); A received ${received} requests, ${perRequest.toFixed(3)} per client request (target ≤ 1.2; the issue measured 4 before breaker and budget)`,
          };
        } finally {
          await aEmu.stop();
          await gw.stop();
        }
      },
    },
    {
      name: 'A answering 429 with Retry-After: 2 (d)',
      fast: true,
      async run({ env, dir, logFile }) {
        const gw = await ownGateway(env, dir, logFile, 'retry-after');
        const aEmu = await startEmulator(logFile);
        try {
          const quota = { status: 429, body: { error: { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED' } }, headers: { 'retry-after': '2' } };
          // A answers the probe after PROBE_HOLD_MS, so "while the probe is out" is long enough to
          // see. That reply is queued a second into the cooldown, when no request reaches A, so a
          // call already in flight when A answered 429 cannot take it.
          const PROBE_HOLD_MS = 1000;
          const control = (body) =>
            fetch(`${aEmu.url}/__emulator/replies`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
          await control([quota]);
          const headers = A_THEN_B(aEmu.url, { retry: { attempts: 0 } });
          // Warm the gateway through B, so the first paced request (the one A answers 429) is not
          // still in flight when the next ones start.
          await send(gw.url, { body: chatBody(), headers: B_ALONE });
          let sawLimit;
          const limitSeen = new Promise((r) => (sawLimit = r));
          let holdQueuedAt = Infinity;
          const holdQueued = limitSeen
            .then(() => sleep(1000))
            .then(() => control([{ delayMs: PROBE_HOLD_MS }]))
            .then(() => (holdQueuedAt = Date.now()));
          const { answers } = await paced(n(4000, 4500), (i, t0) =>
            timedSend(gw.url, { body: chatBody(), headers }, t0).then((a) => {
              if (route(a).reachedA && !route(a).byA) sawLimit();
              return a;
            }),
          );
          sawLimit();
          await holdQueued;
          // Measured where it matters, at A: when each call arrived there.
          const arrivals = ((await (await fetch(`${aEmu.url}/__emulator/requests`)).json()) ?? []).map((r) => r.receivedAtMs);
          const limitedAt = arrivals[0];
          // The first call after the hold was queued is the probe (it takes the held reply).
          const probeAt = arrivals.find((t) => t > holdQueuedAt) ?? Infinity;
          // Calls the gateway had sent before the 429 came back, arriving just after it.
          const inFlight = arrivals.filter((t) => t > limitedAt && t < holdQueuedAt);
          const quietMs = probeAt - Math.max(limitedAt, ...inFlight);
          const sinceLimitMs = probeAt - limitedAt;
          // One probe: nothing else arrived at A until A had answered it.
          const duringProbe = arrivals.filter((t) => t > probeAt && t < probeAt + PROBE_HOLD_MS).length;
          const skipped = answers.filter((a) => route(a).skipped === 1).length;
          const byA = answers.filter((a) => route(a).byA).length;
          const correct = answers.filter((a) => a.status === 200).length;
          return {
            sent: answers.length,
            correct,
            lost: answers.filter((a) => a.lost !== undefined).length,
            offTarget: !(sinceLimitMs >= 2000) || duringProbe !== 0 || inFlight.some((t) => t > limitedAt + 500),
            figures: { sinceLimitMs, quietMs, inFlight: inFlight.length, skipped, duringProbe, arrivals: arrivals.length, byA },
            note:
              `${RATE} req/s, fallback to B; at A: the next call after the 429 came ${Math.round(sinceLimitMs)} ms later (target ≥ 2000 ms)` +
              `${inFlight.length ? `, besides ${inFlight.length} sent before the 429 came back (within ${f1(Math.max(...inFlight) - limitedAt)} ms)` : ''}; ` +
              `${skipped} requests skipped to B while A cooled down or its probe was out; that call was the one probe (${duringProbe} other calls reached A while it was out) and closed the breaker; ` +
              `A then answered ${byA} requests`,
          };
        } finally {
          await aEmu.stop();
          await gw.stop();
        }
      },
    },
  ];
}
