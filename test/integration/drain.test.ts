/**
 * The drain after SIGTERM (issue 15 item 5), with the real `sidegate serve` process: idle
 * keep-alive clients do not hold it, a busy keep-alive client is told `Connection: close` and
 * loses nothing, the process exits as soon as the last in-flight answer ends, and a collector
 * that never answers does not hold the exit past the bounded flush. Builds its own copy of the
 * program (under .cache/, so it never races the CLI suite's dist/).
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Agent, createServer, request } from 'node:http';
import { createServer as createNetServer, connect, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';

const root = new URL('../..', import.meta.url).pathname;
const outDir = `${root}.cache/test-build/drain`;
const GATEWAY_KEY = 'drain-gateway-key';

let emulator: Emulator;
beforeAll(async () => {
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: root });
  emulator = await startEmulator({ port: 0 });
}, 120_000);
afterAll(() => emulator?.close());

async function serve(env: Record<string, string> = {}) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [`${outDir}/main.js`, 'serve', '--port', '0'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      OTEL_SDK_DISABLED: 'true',
      SIDEGATE_API_KEYS: GATEWAY_KEY,
      SIDEGATE_GEMINI_BASE_URL: emulator.url,
      SIDEGATE_SHUTDOWN_GRACE_MS: '60000',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (let i = 0; i < 200 && !/listening on/.test(stdout); i++) await new Promise((r) => setTimeout(r, 50));
  const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
  if (!url) throw new Error(`gateway did not start: ${stderr}`);
  return { child, url, port: Number(new URL(url).port), exited, stderr: () => stderr };
}

const chatBody = (stream = false) => JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], stream });
const chatHeaders = {
  'content-type': 'application/json',
  'x-gateway-api-key': GATEWAY_KEY,
  'x-gateway-provider': 'google',
  authorization: 'Bearer drain-provider-key',
};

/** One request over `agent`; resolves with status, connection header and body, or rejects with the socket error. */
function call(url: string, agent: Agent, body = chatBody()): Promise<{ status: number; connection: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/chat/completions`, { method: 'POST', agent, headers: chatHeaders }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: String(res.headers.connection), text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('drain after SIGTERM', () => {
  it('finishes the stream in flight, closes idle keep-alive connections, and exits as soon as the stream ends', async () => {
    const gw = await serve();
    // Five clients holding idle keep-alive connections.
    const idle: Socket[] = [];
    const idleClosed: Array<Promise<void>> = [];
    for (let i = 0; i < 5; i++) {
      const s = connect(gw.port, '127.0.0.1');
      s.on('error', () => {});
      s.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
      await new Promise((r) => s.once('data', r));
      idle.push(s);
      idleClosed.push(new Promise((r) => s.once('close', () => r())));
    }
    emulator.enqueue({
      chunks: [0, 1, 2].map((i) => ({
        delayMs: 200,
        data: { candidates: [{ content: { role: 'model', parts: [{ text: `p${i} ` }] }, index: 0, ...(i === 2 ? { finishReason: 'STOP' } : {}) }] },
      })),
    });
    const agent = new Agent({ keepAlive: true });
    const stream = call(gw.url, agent, chatBody(true));
    for (let i = 0; i < 100 && emulator.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    gw.child.kill('SIGTERM');

    const answer = await stream;
    expect(answer.text).toContain('p2');
    expect(answer.text.endsWith('data: [DONE]\n\n')).toBe(true);
    await Promise.all(idleClosed);
    // The grace is 60 s: exiting at all within this test's time means it did not wait for it.
    expect(await gw.exited).toBe(0);
    agent.destroy();
  }, 20_000);

  it('tells a busy keep-alive client Connection: close and cuts none of its requests', async () => {
    const gw = await serve();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const answers: Array<{ status: number; connection: string; afterSignal: boolean }> = [];
    const failures: string[] = [];
    let signalled = false;
    const loop = (async () => {
      for (;;) {
        try {
          const r = await call(gw.url, agent);
          answers.push({ status: r.status, connection: r.connection, afterSignal: signalled });
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (signalled && code === 'ECONNREFUSED') return; // the listener is gone: a refusal, not a loss
          failures.push(String(code ?? err));
          return;
        }
      }
    })();
    for (let i = 0; i < 200 && answers.length < 20; i++) await new Promise((r) => setTimeout(r, 10));
    signalled = true;
    gw.child.kill('SIGTERM');
    await loop;
    expect(failures).toEqual([]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.at(-1)!.connection).toBe('close');
    expect(await gw.exited).toBe(0);
    agent.destroy();
  }, 20_000);

  it.each(['false', 'true'])('flushes the spans still queued at SIGTERM before it exits (SIDEGATE_OTLP_WORKER=%s)', async (worker) => {
    const spans: number[] = [];
    const collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/v1/traces') spans.push(JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8'))).split('"spanId"').length - 1);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const gw = await serve({
      OTEL_SDK_DISABLED: 'false',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Nothing is exported before the exit flush: a batch waits 10 minutes or for 64 spans.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      OTEL_METRICS_EXPORTER: 'none',
      SIDEGATE_OTLP_WORKER: worker,
    });
    const agent = new Agent({ keepAlive: false });
    for (let i = 0; i < 3; i++) expect((await call(gw.url, agent)).status).toBe(200);
    expect(spans).toStrictEqual([]);
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    // Three requests: a request span and an attempt span each.
    expect(spans.reduce((a, b) => a + b, 0)).toBe(6);
    expect(gw.stderr()).not.toContain('span export worker stopped');
    collector.close();
  }, 20_000);

  it.each(['false', 'true'])('does not let a collector that never answers hold the exit past the bounded flush (SIDEGATE_OTLP_WORKER=%s)', async (worker) => {
    const sockets: Socket[] = [];
    const blackHole: NetServer = createNetServer((s) => {
      sockets.push(s); // accept, read nothing, answer nothing
      s.on('error', () => {});
    });
    await new Promise<void>((r) => blackHole.listen(0, '127.0.0.1', r));
    const gw = await serve({
      OTEL_SDK_DISABLED: 'false',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}`,
      // An export would wait 60 s for this collector; the flush at exit is bounded at 5 s.
      OTEL_EXPORTER_OTLP_TIMEOUT: '60000',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '100',
      SIDEGATE_OTLP_WORKER: worker,
    });
    const agent = new Agent({ keepAlive: false });
    for (let i = 0; i < 3; i++) expect((await call(gw.url, agent)).status).toBe(200);
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    for (const s of sockets) s.destroy();
    blackHole.close();
  }, 20_000);
});
