// The faults, one row each. A row sends requests (or connections) and counts what came back:
// `sent`, `correct` (answered as the fault calls for: the right status and envelope, a complete
// stream or a clean error event, a closed slow connection), `lost` (no answer: reset, hang or
// cut), `bad5xx` (a 5xx answer to bad input). A row is at target when every request was answered
// correctly, none was lost and no bad input got a 5xx.
import { rename, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import {
  ADMIN_KEY,
  chatBody,
  chatHeaders,
  ECHO_KEY,
  GATEWAY_KEY,
  isEnvelope,
  pool,
  PROVIDER_KEY,
  PROVIDER_KEY_2,
  rawExchange,
  send,
  sleep,
  sseData,
  statusesOf,
} from './lib/client.mjs';
import { connections, deadPort, resources, startCollector, startGateway } from './lib/processes.mjs';

const googleError = (code, status, message) => ({ error: { code, message, status } });
const chunk = (text, finish) => ({
  candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
  usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
});
const count = (list, pred) => list.filter(pred).length;
const lostOf = (answers) => count(answers, (a) => a.lost !== undefined);
const config = (c) => ({ ...chatHeaders, 'x-gateway-config': JSON.stringify(c) });
const nest = (depth, leaf, wrap) => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = wrap(v);
  return v;
};
/** A deeply nested JSON text built as a string (JSON.stringify of such a value would overflow the stack). */
const deepObjectText = (depth, key = 'a') => `${`{"${key}":`.repeat(depth)}1${'}'.repeat(depth)}`;
const deepArrayText = (depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** Watches /healthz while `work` runs; resolves with the slowest probe in ms. */
async function probeWhile(base, work) {
  let slowest = 0;
  let running = true;
  const prober = (async () => {
    while (running) {
      const t = performance.now();
      await send(base, { method: 'GET', path: '/healthz', headers: {}, timeoutMs: 60_000 });
      slowest = Math.max(slowest, performance.now() - t);
      await sleep(100);
    }
  })();
  const result = await work();
  running = false;
  await prober;
  return { result, slowestProbeMs: Math.round(slowest) };
}

export function rows({ fast }) {
  const n = (quick, full) => (fast ? quick : full);
  return [
    {
      name: 'Vertex AI, pod identity: metadata-server tokens expiring and a token request failing',
      fast: true,
      async run({ gw, emu }) {
        const total = n(40, 150);
        const headers = { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'vertex-ai', 'x-gateway-vertex-region': 'us-central1' };
        // Every token lives 60 s, inside the refresh margin, so each wave refreshes; one token
        // request fails (a 502 vertex_auth_failed, then the next request gets a fresh token).
        await emu.googleAuth({ token_lifetimes: Array.from({ length: 20 }, () => 60) });
        const waves = 4;
        const answers = [];
        for (let w = 0; w < waves; w++) {
          if (w === 2) await emu.googleAuth({ fail_next: [{ source: 'metadata', status: 403 }] });
          answers.push(...(await pool(Math.ceil(total / waves), 10, () => send(gw.url, { headers, body: chatBody() }))));
        }
        const ok = (a) => a.status === 200 && JSON.parse(a.text).choices?.[0]?.message?.content === 'Echo: hello';
        const authFailed = (a) => a.status === 502 && isEnvelope(a.text) && JSON.parse(a.text).error.code === 'vertex_auth_failed';
        return {
          sent: answers.length,
          correct: count(answers, (a) => ok(a) || authFailed(a)),
          lost: lostOf(answers),
          note: `${count(answers, authFailed)} answered 502 vertex_auth_failed while the metadata server refused`,
        };
      },
    },
    {
      name: 'upstream 5xx storm (500/503)',
      fast: true,
      async run({ gw, emu }) {
        const total = n(60, 300);
        await emu.enqueue(
          Array.from({ length: total }, (_, i) =>
            i % 2
              ? { status: 503, body: googleError(503, 'UNAVAILABLE', 'The model is overloaded.'), headers: { 'retry-after': '2' } }
              : { status: 500, body: googleError(500, 'INTERNAL', 'Internal error encountered.') },
          ),
        );
        const answers = await pool(total, 50, () => send(gw.url, { body: chatBody() }));
        const correct = count(answers, (a) => (a.status === 500 || (a.status === 503 && a.headers['retry-after'] === '2')) && isEnvelope(a.text));
        return { sent: total, correct, lost: lostOf(answers) };
      },
    },
    {
      name: 'upstream resets before headers',
      fast: true,
      async run({ gw, emu }) {
        const total = n(30, 100);
        await emu.enqueue(Array.from({ length: total }, () => ({ drop: true })));
        const answers = await pool(total, 30, () => send(gw.url, { body: chatBody() }));
        return { sent: total, correct: count(answers, (a) => a.status === 502 && isEnvelope(a.text)), lost: lostOf(answers) };
      },
    },
    {
      name: 'upstream resets mid-stream',
      fast: true,
      async run({ gw, emu }) {
        const total = n(30, 100);
        await emu.enqueue(Array.from({ length: total }, () => ({ chunks: [{ data: chunk('first ') }, { data: chunk('second ') }], end: 'drop' })));
        const answers = await pool(total, 30, () => send(gw.url, { body: chatBody({ stream: true }) }));
        const correct = count(answers, (a) => {
          if (a.status !== 200) return false;
          const events = sseData(a.text);
          return events.some((e) => e.includes('first')) && !events.includes('[DONE]') && JSON.parse(events.at(-1)).error !== undefined;
        });
        return { sent: total, correct, lost: lostOf(answers) };
      },
    },
    {
      name: 'upstream headers never come',
      fast: true,
      async run({ gw, emu }) {
        const total = n(10, 30);
        await emu.enqueue(Array.from({ length: total }, () => ({ delayMs: 600_000 })));
        const answers = await pool(total, total, () => send(gw.url, { body: chatBody(), headers: config({ request_timeout: 1000 }) }));
        const correct = count(answers, (a) => a.status === 504 && JSON.parse(a.text).error.type === 'timeout_error');
        return { sent: total, correct, lost: lostOf(answers) };
      },
    },
    {
      name: 'upstream garbage and HTML bodies',
      fast: true,
      async run({ gw, emu }) {
        const kinds = [
          { reply: { status: 200, raw: ['\u0000\u00ff{{garbage'], headers: { 'content-type': 'application/json' } }, want: 502 },
          { reply: { status: 200, raw: ['<html><body>Welcome</body></html>'], headers: { 'content-type': 'text/html' } }, want: 502 },
          { reply: { status: 502, raw: ['<html><body><h1>502 Bad Gateway</h1></body></html>'], headers: { 'content-type': 'text/html' } }, want: 502 },
          { reply: { status: 503, raw: ['<html>Service Unavailable</html>'], headers: { 'content-type': 'text/html' } }, want: 503 },
          { reply: { status: 200, raw: ['data: {not json\r\n\r\n'], headers: { 'content-type': 'text/event-stream' } }, want: 502, stream: true },
        ];
        const per = n(4, 10);
        const answers = [];
        for (const k of kinds) {
          await emu.enqueue(Array.from({ length: per }, () => k.reply));
          const got = await pool(per, per, () => send(gw.url, { body: chatBody(k.stream ? { stream: true } : {}) }));
          answers.push(...got.map((a) => ({ ...a, ok: a.status === k.want && isEnvelope(a.text) })));
        }
        return { sent: answers.length, correct: count(answers, (a) => a.ok), lost: lostOf(answers) };
      },
    },
    {
      name: 'a 50 MB upstream answer',
      fast: false,
      async run({ gw, emu }) {
        const before = resources(gw.pid);
        const total = 2;
        const answers = [];
        const { slowestProbeMs } = await probeWhile(gw.url, async () => {
          for (let i = 0; i < total; i++) {
            await emu.enqueue([
              {
                status: 200,
                headers: { 'content-type': 'application/json' },
                raw: ['{"candidates":[{"content":{"role":"model","parts":[{"text":"', { repeat: 'a', times: 50 * 1000 * 1000 }, '"}]},"finishReason":"STOP","index":0}]}'],
              },
            ]);
            answers.push(await send(gw.url, { body: chatBody(), timeoutMs: 60_000 }));
          }
        });
        const after = resources(gw.pid);
        const correct = count(answers, (a) => a.status === 502 && JSON.parse(a.text).error.code === 'upstream_answer_too_large');
        return {
          sent: total,
          correct,
          lost: lostOf(answers),
          note: `502 upstream_answer_too_large past 32 MiB; gateway peak RSS ${before.peakMB.toFixed(0)} → ${after.peakMB.toFixed(0)} MB; slowest /healthz meanwhile ${slowestProbeMs} ms`,
        };
      },
    },
    {
      name: 'a 50 MB single upstream event',
      fast: false,
      async run({ gw, emu }) {
        await emu.enqueue([
          {
            status: 200,
            headers: { 'content-type': 'text/event-stream' },
            raw: ['data: {"candidates":[{"content":{"role":"model","parts":[{"text":"', { repeat: 'a', times: 50 * 1000 * 1000 }, '"}]},"index":0}]}\r\n\r\n'],
          },
        ]);
        const { result: a, slowestProbeMs } = await probeWhile(gw.url, () => send(gw.url, { body: chatBody({ stream: true }), timeoutMs: 90_000 }));
        const clearError =
          (a.status >= 500 && isEnvelope(a.text)) ||
          (a.status === 200 && !sseData(a.text).includes('[DONE]') && sseData(a.text).some((e) => e.startsWith('{"error"')));
        // At target: a clear error, and the gateway kept answering probes (no stall over 1 s).
        const correct = clearError && slowestProbeMs < 1000 ? 1 : 0;
        return { sent: 1, correct, lost: lostOf([a]), note: `answer ${a.status ?? a.lost}; slowest /healthz meanwhile ${slowestProbeMs} ms` };
      },
    },
    {
      name: 'client aborts mid-stream',
      fast: true,
      async run({ gw, emu }) {
        const total = n(100, 1000);
        const gwPort = Number(new URL(gw.url).port);
        const emuPort = Number(new URL(emu.url).port);
        await sleep(300);
        const before = { ...resources(gw.pid), ...connections(gw.pid, gwPort, emuPort) };
        await emu.enqueue(Array.from({ length: total }, () => ({ chunks: [{ data: chunk('first ') }, { delayMs: 3000, data: chunk('late ', 'STOP') }] })));
        let aborted = 0;
        await pool(total, 50, async () => {
          const controller = new AbortController();
          const agent = new Agent({ keepAlive: false });
          await new Promise((resolve) => {
            const req = request(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: chatHeaders, agent, signal: controller.signal }, (res) => {
              res.once('data', () => {
                controller.abort();
                aborted++;
                resolve();
              });
              res.on('error', () => {});
            });
            req.on('error', () => resolve());
            req.end(chatBody({ stream: true }));
          });
        });
        // Back to baseline: every aborted client connection closed, memory back within 60 MB, and
        // the upstream side no larger than a keep-alive pool for 50 calls at once (undici keeps
        // idle connections; a leaked call per abort would show as hundreds).
        let after;
        for (let i = 0; i < 30; i++) {
          after = { ...resources(gw.pid), ...connections(gw.pid, gwPort, emuPort) };
          if (after.clients <= before.clients && after.upstream <= 64) break;
          await sleep(500);
        }
        const back = after.clients <= before.clients && after.upstream <= 64 && after.rssMB <= before.rssMB + 60;
        return {
          sent: total,
          correct: back ? aborted : 0,
          lost: total - aborted,
          note: `client connections ${before.clients} → ${after.clients}, upstream connections ${before.upstream} → ${after.upstream} (pooled, idle), fds ${before.fds} → ${after.fds}, RSS ${before.rssMB.toFixed(0)} → ${after.rssMB.toFixed(0)} MB`,
        };
      },
    },
    ...['down', 'blackhole', '500'].map((mode) => ({
      name: `collector ${mode === 'down' ? 'down' : mode === 'blackhole' ? 'black-holed' : 'answering 500'}`,
      fast: true,
      async run({ emu, env, logFile }) {
        const collector = mode === 'down' ? undefined : await startCollector(mode);
        const endpoint = collector?.url ?? (await deadPort());
        const own = await startGateway({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_MAX_QUEUE_SIZE: '512' }, logFile);
        try {
          const total = n(100, 400);
          const answers = await pool(total, 20, () => send(own.url, { body: chatBody() }));
          await sleep(1500);
          const metrics = (await send(own.url, { method: 'GET', path: '/metrics', headers: {} })).text ?? '';
          const dropped = /sidegate_telemetry_spans_dropped_total(?:\{[^}]*\})? (\d+)/.exec(metrics)?.[1] ?? '0';
          const r = resources(own.pid);
          return {
            sent: total,
            correct: count(answers, (a) => a.status === 200),
            lost: lostOf(answers),
            note: `spans dropped (counted) ${dropped}; RSS ${r.rssMB.toFixed(0)} MB`,
          };
        } finally {
          await own.stop();
          await collector?.close();
          void emu;
        }
      },
    })),
    {
      name: 'SIGTERM with streams in flight',
      fast: true,
      async run({ emu, env, logFile }) {
        const own = await startGateway({ ...env, SIDEGATE_SHUTDOWN_GRACE_MS: '20000' }, logFile);
        const total = n(10, 20);
        await emu.enqueue(
          Array.from({ length: total }, () => ({ chunks: [0, 1, 2, 3, 4].map((i) => ({ delayMs: i === 0 ? 0 : 200, data: chunk(`p${i} `, i === 4 ? 'STOP' : undefined) })) })),
        );
        const pending = Array.from({ length: total }, () => send(own.url, { body: chatBody({ stream: true }), agent: new Agent({ keepAlive: true }) }));
        // SIGTERM once every stream is in flight (each one's upstream call has started).
        for (let i = 0; i < 200; i++) {
          const seen = await (await fetch(`${emu.url}/__emulator/requests`)).json();
          if (seen.length >= total) break;
          await sleep(50);
        }
        await sleep(250);
        const t = performance.now();
        own.child.kill('SIGTERM');
        const answers = await Promise.all(pending);
        const code = await own.exited;
        const exitMs = Math.round(performance.now() - t);
        await own.stop();
        const correct = count(answers, (a) => a.status === 200 && a.text.endsWith('data: [DONE]\n\n') && a.text.includes('p4'));
        const lostCodes = answers.filter((a) => a.lost !== undefined).map((a) => a.lost);
        return {
          sent: total,
          correct: code === 0 ? correct : 0,
          lost: lostOf(answers),
          note: `exit ${code} ${exitMs} ms after SIGTERM (grace 20 s)${lostCodes.length ? `; lost: ${lostCodes.join(', ')}` : ''}`,
        };
      },
    },
    {
      name: 'SIGTERM with keep-alive clients',
      fast: true,
      async run({ env, logFile }) {
        const own = await startGateway({ ...env, SIDEGATE_SHUTDOWN_GRACE_MS: '20000' }, logFile);
        const port = Number(new URL(own.url).port);
        const idle = [];
        for (let i = 0; i < 10; i++) {
          const s = connect(port, '127.0.0.1');
          s.on('error', () => {});
          s.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
          await new Promise((r) => s.once('data', r));
          idle.push(s);
        }
        let signalled = false;
        const answers = [];
        const loops = Array.from({ length: 4 }, async () => {
          const agent = new Agent({ keepAlive: true, maxSockets: 1 });
          for (;;) {
            const a = await send(own.url, { body: chatBody(), agent });
            if (a.lost === 'ECONNREFUSED' && signalled) return; // the listener is gone: refused, never accepted
            answers.push(a);
            if (a.lost !== undefined) return;
          }
        });
        await sleep(1000);
        const t = performance.now();
        signalled = true;
        own.child.kill('SIGTERM');
        await Promise.all(loops);
        const code = await own.exited;
        const exitMs = Math.round(performance.now() - t);
        await own.stop();
        for (const s of idle) s.destroy();
        const closes = count(answers, (a) => a.headers?.connection === 'close');
        return {
          sent: answers.length,
          correct: code === 0 ? count(answers, (a) => a.status === 200) : 0,
          lost: lostOf(answers),
          note: `4 busy + 10 idle keep-alive clients; ${closes} answers said Connection: close; exit ${code} ${exitMs} ms after SIGTERM (grace 20 s)`,
        };
      },
    },
    {
      name: 'virtual-keys file replaced while serving',
      fast: true,
      async run({ gw, dir }) {
        const file = join(dir, 'virtual-keys.json');
        const total = n(100, 400);
        let writing = true;
        let writes = 0;
        const writer = (async () => {
          while (writing) {
            const key = writes % 2 ? PROVIDER_KEY : PROVIDER_KEY_2;
            const text = JSON.stringify([{ slug: 'fk', provider: 'google', api_key: key }]);
            if (writes % 2) {
              await writeFile(`${file}.tmp`, text);
              await rename(`${file}.tmp`, file); // how a Kubernetes Secret update lands (atomic swap)
            } else {
              await writeFile(file, text); // in place: a reader may see it half written
            }
            writes++;
            await sleep(15);
          }
        })();
        const headers = { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': '@fk' };
        const answers = await pool(total, 10, () => send(gw.url, { body: chatBody(), headers }));
        writing = false;
        await writer;
        return { sent: total, correct: count(answers, (a) => a.status === 200), lost: lostOf(answers), note: `${writes} rewrites (atomic and in place)` };
      },
    },
    {
      name: 'slow-header connections',
      fast: true,
      async run({ gw }) {
        const slow = n(50, 200);
        const normal = 50;
        const port = Number(new URL(gw.url).port);
        const head = `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nx-gateway-api-key: ${GATEWAY_KEY}\r\nx-filler: ${'a'.repeat(200)}\r\n\r\n`;
        const slowRuns = Array.from({ length: slow }, () => rawExchange(port, head, { trickle: 100, timeoutMs: 15_000 }));
        await sleep(200);
        const answers = await pool(normal, 10, () => send(gw.url, { body: chatBody() }));
        const slowAnswers = await Promise.all(slowRuns);
        const slowOk = count(slowAnswers, (a) => !a.hung && (a.text === '' || a.text.startsWith('HTTP/1.1 408 ')));
        return {
          sent: slow + normal,
          correct: slowOk + count(answers, (a) => a.status === 200),
          lost: lostOf(answers) + count(slowAnswers, (a) => a.hung),
          note: `${slow} heads at 1 byte/100 ms closed with 408 (SIDEGATE_HEADERS_TIMEOUT_MS=1000) while ${normal} normal requests were served`,
        };
      },
    },
    {
      name: 'slow-body connections',
      fast: true,
      async run({ gw }) {
        const slow = n(30, 100);
        const normal = 30;
        const port = Number(new URL(gw.url).port);
        const body = chatBody();
        const head =
          `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nx-gateway-api-key: ${GATEWAY_KEY}\r\nx-gateway-provider: google\r\n` +
          `authorization: Bearer ${PROVIDER_KEY}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
        const slowRuns = Array.from({ length: slow }, async () => {
          // The head at once, then the body a byte at a time.
          const socket = connect(port, '127.0.0.1');
          const chunks = [];
          socket.on('data', (c) => chunks.push(c));
          socket.on('error', () => {});
          await new Promise((r) => socket.once('connect', r));
          socket.write(head);
          let i = 0;
          const timer = setInterval(() => (i < body.length && !socket.destroyed ? socket.write(body[i++]) : clearInterval(timer)), 100);
          const hung = await Promise.race([new Promise((r) => socket.once('close', () => r(false))), sleep(15_000).then(() => true)]);
          clearInterval(timer);
          socket.destroy();
          return { text: Buffer.concat(chunks).toString('latin1'), hung };
        });
        const answers = await pool(normal, 10, () => send(gw.url, { body: chatBody() }));
        const slowAnswers = await Promise.all(slowRuns);
        return {
          sent: slow + normal,
          correct: count(slowAnswers, (a) => !a.hung && a.text.startsWith('HTTP/1.1 408 ')) + count(answers, (a) => a.status === 200),
          lost: lostOf(answers) + count(slowAnswers, (a) => a.hung),
          note: `${slow} bodies at 1 byte/100 ms answered 408 (SIDEGATE_REQUEST_TIMEOUT_MS=2000)`,
        };
      },
    },
    {
      name: 'many concurrent slow upstream calls',
      fast: false,
      async run({ gw, emu }) {
        const total = 300;
        await emu.enqueue(Array.from({ length: total }, () => ({ delayMs: 2000 })));
        const answers = await pool(total, total, () => send(gw.url, { body: chatBody(), headers: config({ request_timeout: 3500 }), timeoutMs: 60_000 }));
        return { sent: total, correct: count(answers, (a) => a.status === 200), lost: lostOf(answers), note: 'upstream answers in 2 s, attempt timeout 3.5 s' };
      },
    },
    {
      name: 'upstream error echoing the provider key',
      fast: true,
      async run({ gw, emu }) {
        const msg = `API key not valid: ${PROVIDER_KEY}. Please pass a valid API key.`;
        const cases = [
          { reply: { status: 400, body: googleError(400, 'INVALID_ARGUMENT', msg) } },
          { reply: { status: 200, body: googleError(400, 'INVALID_ARGUMENT', msg) } },
          { reply: { chunks: [{ data: chunk('x ') }], end: { error: googleError(500, 'INTERNAL', msg).error } }, stream: true },
          { reply: { status: 200, raw: [`data: ${JSON.stringify(googleError(400, 'INVALID_ARGUMENT', msg))}\r\n\r\n`], headers: { 'content-type': 'text/event-stream' } }, stream: true },
          { reply: { status: 500, raw: [`<html>${msg}</html>`], headers: { 'content-type': 'text/html' } } },
          { reply: { status: 403, body: googleError(403, 'PERMISSION_DENIED', msg) } },
        ];
        const answers = [];
        for (const c of cases) {
          await emu.enqueue([c.reply]);
          answers.push(await send(gw.url, { body: chatBody(c.stream ? { stream: true } : {}) }));
        }
        const leaked = count(answers, (a) => (a.text ?? '').includes(PROVIDER_KEY));
        return { sent: cases.length, correct: count(answers, (a) => a.status !== undefined && !(a.text ?? '').includes(PROVIDER_KEY)), lost: lostOf(answers), note: `${leaked} answers repeated the key` };
      },
    },
    {
      name: 'hostile input',
      fast: true,
      async run({ gw }) {
        const port = Number(new URL(gw.url).port);
        const authHead = (extra = '') =>
          `host: x\r\nx-gateway-api-key: ${GATEWAY_KEY}\r\nx-gateway-provider: google\r\nauthorization: Bearer ${PROVIDER_KEY}\r\ncontent-type: application/json\r\n${extra}`;
        const post = (body, extraHead = '') => `POST /v1/chat/completions HTTP/1.1\r\n${authHead(extraHead)}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
        const postBytes = (body) =>
          Buffer.concat([Buffer.from(`POST /v1/chat/completions HTTP/1.1\r\n${authHead()}content-length: ${body.length}\r\nconnection: close\r\n\r\n`), body]);
        const deep = 20_000;
        const msgs = (extra) => ({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], ...extra });
        const withDeep = (obj, marker, deepText) => JSON.stringify(obj).replace(`"${marker}"`, deepText);
        const cases = [
          ['huge header (32 KB)', `GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(32_768)}\r\n\r\n`],
          ['many headers (3,000)', `GET /healthz HTTP/1.1\r\nhost: x\r\n${Array.from({ length: 3000 }, (_, i) => `x-h${i}: v\r\n`).join('')}\r\n`],
          ['500 small headers on a chat call', post(chatBody(), Array.from({ length: 500 }, (_, i) => `x-h${i}: v\r\n`).join(''))],
          ['deep JSON: body root', post(deepArrayText(100_000))],
          ['deep JSON: message content', post(withDeep(msgs({ messages: [{ role: 'user', content: 'DEEP' }] }), 'DEEP', deepArrayText(deep)))],
          ['deep JSON: tool parameters', post(withDeep(msgs({ tools: [{ type: 'function', function: { name: 'f', parameters: 'DEEP' } }] }), 'DEEP', deepObjectText(deep, 'properties')))],
          [
            'deep JSON: items schema',
            post(withDeep(msgs({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: 'DEEP' } } } }] }), 'DEEP', deepObjectText(deep, 'items'))),
          ],
          ['deep JSON: response_format schema', post(withDeep(msgs({ response_format: { type: 'json_schema', json_schema: { name: 's', schema: 'DEEP' } } }), 'DEEP', deepObjectText(deep)))],
          [
            'deep JSON: tool-call arguments',
            post(
              JSON.stringify(
                msgs({
                  messages: [
                    { role: 'user', content: 'hi' },
                    { role: 'assistant', content: null, tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'f', arguments: deepArrayText(deep) } }] },
                    { role: 'tool', tool_call_id: 'call-1', content: '{}' },
                  ],
                }),
              ),
            ),
          ],
          [
            'deep JSON: tool result',
            post(
              JSON.stringify(
                msgs({
                  messages: [
                    { role: 'user', content: 'hi' },
                    { role: 'assistant', content: null, tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
                    { role: 'tool', tool_call_id: 'call-1', content: deepObjectText(deep) },
                  ],
                }),
              ),
            ),
          ],
          ['deep JSON: x-gateway-metadata', post(chatBody(), `x-gateway-metadata: ${deepObjectText(2000)}\r\n`)],
          ['deep JSON: x-gateway-config', post(chatBody(), `x-gateway-config: ${deepObjectText(1000, 'targets')}\r\n`)],
          ['invalid UTF-8 in the body', postBytes(Buffer.concat([Buffer.from('{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}]}')]))],
          ['invalid UTF-8 in a header', Buffer.concat([Buffer.from(`POST /v1/chat/completions HTTP/1.1\r\n${authHead()}x-gateway-metadata: {"a":"`), Buffer.from([0xc3, 0x28]), Buffer.from(`"}\r\ncontent-length: ${chatBody().length}\r\nconnection: close\r\n\r\n${chatBody()}`)])],
          ['smuggling: Content-Length + Transfer-Encoding', `POST /v1/chat/completions HTTP/1.1\r\n${authHead()}content-length: 4\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\nGET /v1/virtual-keys HTTP/1.1\r\nhost: x\r\n\r\n`],
          ['smuggling: two Content-Lengths', `POST /v1/chat/completions HTTP/1.1\r\n${authHead()}content-length: 5\r\ncontent-length: 40\r\n\r\n{"a":1}`],
          ['smuggling: bad chunk size', `POST /v1/chat/completions HTTP/1.1\r\n${authHead()}transfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
          ['smuggling: obfuscated Transfer-Encoding', `POST /v1/chat/completions HTTP/1.1\r\n${authHead()}transfer-encoding: xchunked\r\ncontent-length: 2\r\n\r\n{}`],
          ['bad path: /v1/chat/completions%zz', `POST /v1/chat/completions%zz HTTP/1.1\r\n${authHead()}content-length: 2\r\nconnection: close\r\n\r\n{}`],
          ['bad path: /v1/virtual-keys/%E0%A4%A', `DELETE /v1/virtual-keys/%E0%A4%A HTTP/1.1\r\nhost: x\r\nx-gateway-api-key: ${ADMIN_KEY}\r\nconnection: close\r\n\r\n`],
          ['bad path: dot segments', `GET /v1/../../etc/passwd HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`],
          ['bad path: 8 KB long', `GET /${'a'.repeat(8000)} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`],
          ['bad path: absolute form', `GET http://evil.example/v1/models HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`],
          ['a key in x-gateway-provider', post(chatBody(), '').replace('x-gateway-provider: google', `x-gateway-provider: ${ECHO_KEY}`)],
        ];
        const results = [];
        for (const [name, bytes] of cases) {
          const r = await rawExchange(port, bytes, { timeoutMs: 15_000 });
          const statuses = statusesOf(r.text);
          results.push({ name, hung: r.hung && statuses.length === 0, statuses });
        }
        // Pipelining: several requests in one write come back answered, in order.
        const pipelined = await rawExchange(
          port,
          `GET /healthz HTTP/1.1\r\nhost: x\r\n\r\nGET /readyz HTTP/1.1\r\nhost: x\r\n\r\n${post(chatBody()).replace('connection: close\r\n', '')}GET /nope HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
          { timeoutMs: 15_000 },
        );
        const pipeStatuses = statusesOf(pipelined.text);
        results.push({ name: 'pipelining (4 requests, one write)', hung: pipelined.hung, statuses: pipeStatuses, want: [200, 200, 200, 404] });
        const bad5xx = count(results, (r) => r.statuses.some((s) => s >= 500));
        const ok = (r) => !r.hung && r.statuses.length > 0 && (r.want ? r.want.join() === r.statuses.join() : r.statuses.every((s) => s < 500));
        const failing = results.filter((r) => !ok(r)).map((r) => `${r.name} → ${r.hung ? 'no answer' : r.statuses.join(',') || 'closed'}`);
        return {
          sent: results.length,
          correct: count(results, ok),
          lost: count(results, (r) => r.hung),
          bad5xx,
          note: failing.length ? `off target: ${failing.join('; ')}` : 'every case answered 4xx (or served), none 5xx',
          cases: results,
        };
      },
    },
  ];
}
