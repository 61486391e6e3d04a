// Clients for the fault run: one HTTP request with a deadline (a hang counts as lost), a raw
// socket exchange for hostile bytes, and a tiny SSE reader.
import { Agent, request } from 'node:http';
import { connect } from 'node:net';

export const GATEWAY_KEY = 'sg-fault-gateway-key-7f3a9c';
export const PROVIDER_KEY = 'AIzaSyFAULTRUNprovider0000000000000001';
export const PROVIDER_KEY_2 = 'AIzaSyFAULTRUNprovider0000000000000002';
export const ECHO_KEY = 'AIzaSyFAULTRUNechoedKey00000000000000003';
export const ADMIN_KEY = 'sg-fault-admin-key-0123456789abcdef';
/** Every secret the run uses: none may appear in a log line, an exported span or an answer. */
export const SECRETS = [GATEWAY_KEY, PROVIDER_KEY, PROVIDER_KEY_2, ECHO_KEY, ADMIN_KEY];
export const SECRET_NAMES = new Map([
  [GATEWAY_KEY, 'the gateway key'],
  [PROVIDER_KEY, 'the provider key'],
  [PROVIDER_KEY_2, 'the second provider key'],
  [ECHO_KEY, 'the key sent in x-gateway-provider'],
  [ADMIN_KEY, 'the admin key'],
]);

export const chatHeaders = {
  'content-type': 'application/json',
  'x-gateway-api-key': GATEWAY_KEY,
  'x-gateway-provider': 'google',
  authorization: `Bearer ${PROVIDER_KEY}`,
};

export const chatBody = (extra = {}) => JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hello' }], ...extra });

const sharedAgent = new Agent({ keepAlive: true, maxSockets: 1024 });

/**
 * One request. Resolves `{status, headers, text}` for an answer, `{lost: code}` when the
 * connection failed or no answer came within `timeoutMs` (`{lost: 'hang'}`).
 */
export function send(base, { method = 'POST', path = '/v1/chat/completions', headers = chatHeaders, body, timeoutMs = 20_000, agent = sharedAgent, signal } = {}) {
  return new Promise((resolve) => {
    let done = false;
    const finish = (v) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(v);
    };
    const req = request(`${base}${path}`, { method, headers, agent, signal }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => finish({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => finish({ lost: err.code ?? 'response error', status: res.statusCode }));
      res.on('aborted', () => finish({ lost: 'aborted', status: res.statusCode }));
    });
    const timer = setTimeout(() => {
      finish({ lost: 'hang' });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err) => finish({ lost: err.code ?? err.message }));
    req.end(body);
  });
}

/** `data:` payloads of an SSE body. */
export function sseData(text) {
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6));
}

/** True when `text` is an OpenAI error envelope. */
export function isEnvelope(text) {
  try {
    const e = JSON.parse(text).error;
    return typeof e?.message === 'string' && typeof e?.type === 'string';
  } catch {
    return false;
  }
}

/**
 * Writes raw bytes on a new connection and collects what comes back until the server closes it
 * or `timeoutMs` passes (`hung: true`). `trickle` writes one byte every `trickle` ms instead.
 */
export function rawExchange(port, bytes, { timeoutMs = 10_000, trickle, halfClose = false } = {}) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks = [];
    let timerTrickle;
    const timer = setTimeout(() => {
      socket.destroy();
      done(true);
    }, timeoutMs);
    const done = (hung) => {
      clearTimeout(timer);
      clearInterval(timerTrickle);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), hung });
    };
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => done(false));
    socket.on('connect', () => {
      const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'latin1');
      if (!trickle) {
        socket.write(buf);
        if (halfClose) socket.end();
        return;
      }
      let i = 0;
      timerTrickle = setInterval(() => {
        if (socket.destroyed || i >= buf.length) return clearInterval(timerTrickle);
        socket.write(buf.subarray(i, i + 1));
        i++;
      }, trickle);
    });
  });
}

/** HTTP status codes of every response head in a raw exchange, in order. */
export function statusesOf(raw) {
  return [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
}

export async function pool(n, concurrency, fn) {
  const results = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, concurrency) }, async () => {
      while (next < n) {
        const i = next++;
        results[i] = await fn(i);
      }
    }),
  );
  return results;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
