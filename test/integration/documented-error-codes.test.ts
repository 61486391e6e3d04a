/**
 * Every error code docs/errors.md documents (its table's Code column) is what the gateway answers
 * when that error happens (issue 24: an oversized upstream event was answered with code null
 * while the docs said `event_too_large`). The test reads the codes from the page, so a code added
 * there without a way to provoke it here fails, and so does a provocation whose code is not
 * documented. Each error is provoked for real: the gateway, the emulator and raw sockets.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleError } from '../../src/emulator/index.js';
import { GATEWAY_KEY, postChat, rawChatHead, startHarness, type Harness } from './harness.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const DOC = new URL('../../docs/errors.md', import.meta.url);

/** The codes in the Code column of the page's error table. */
function documentedCodes(): string[] {
  const lines = readFileSync(DOC, 'utf8').split('\n');
  const header = lines.findIndex((l) => l.startsWith('|') && l.split('|').some((c) => c.trim() === 'Code'));
  if (header === -1) throw new Error('docs/errors.md has no table with a Code column');
  const column = lines[header]!.split('|').findIndex((c) => c.trim() === 'Code');
  const codes: string[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    for (const m of (line.split('|')[column] ?? '').matchAll(/`([a-z_]+)`/g)) codes.push(m[1]!);
  }
  return codes;
}

interface Seen {
  status: number;
  code: string | null | undefined;
  retryAfter?: string | null;
}

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], ...extra });

/** Sends raw bytes on a new connection; resolves with the first whole answer (head and JSON body). */
function rawAnswer(port: number, bytes: string, keepOpen: Array<() => void>): Promise<Seen> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    keepOpen.push(() => socket.destroy());
    let text = '';
    socket.on('error', () => {});
    socket.on('data', (d) => {
      text += d.toString('latin1');
      const at = text.indexOf('\r\n\r\n');
      const body = at === -1 ? '' : text.slice(at + 4);
      if (at === -1 || !body.trim().endsWith('}')) return;
      const retryAfter = /\r\nretry-after: (\d+)/i.exec(text)?.[1] ?? null;
      resolve({ status: Number(text.slice(9, 12)), code: JSON.parse(body).error.code, retryAfter });
    });
    socket.on('connect', () => socket.write(bytes));
  });
}

async function seen(res: Response): Promise<Seen> {
  const body = (await res.json()) as { error: { code: string | null } };
  return { status: res.status, code: body.error.code, retryAfter: res.headers.get('retry-after') };
}

let h: Harness;
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  h = await startHarness({ maxBodyBytes: 64 * KiB, maxUpstreamAnswerBytes: 64 * KiB, maxUpstreamEventBytes: 64 * KiB });
});
afterAll(async () => {
  for (const c of cleanups) c();
  await h.close();
});

/** Runs `provoke` against a gateway of its own (for settings the shared one must not have). */
async function ownGateway(settings: Parameters<typeof startHarness>[0], provoke: (g: Harness) => Promise<Seen>): Promise<Seen> {
  const g = await startHarness(settings);
  try {
    return await provoke(g);
  } finally {
    for (const c of cleanups.splice(0)) c();
    await g.close();
  }
}

/** How to make each code happen, and the status it comes with. */
const provocations: Record<string, { status: number; provoke: () => Promise<Seen> }> = {
  invalid_json: { status: 400, provoke: async () => seen(await postChat(h, '{"model":')) },
  invalid_value: { status: 400, provoke: async () => seen(await postChat(h, chat({ temperature: 7 }))) },
  unknown_parameter: { status: 400, provoke: async () => seen(await postChat(h, chat({ frobnicate: true }))) },
  nesting_too_deep: { status: 400, provoke: async () => seen(await postChat(h, `{"model":"m","messages":[],"metadata":${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}}`)) },
  invalid_path: {
    status: 400,
    provoke: async () => seen(await fetch(`${h.gateway.url}/v1/files/%E0%A4%A`, { headers: { 'x-gateway-api-key': GATEWAY_KEY } })),
  },
  unsupported_parameter: { status: 400, provoke: async () => seen(await postChat(h, chat({ logit_bias: { '1': 5 } }))) },
  invalid_api_key: { status: 401, provoke: async () => seen(await postChat(h, chat(), { ...h.headers, 'x-gateway-api-key': 'not-the-key' })) },
  missing_api_key: {
    status: 401,
    provoke: async () => {
      const { 'x-gateway-api-key': _, ...headers } = h.headers;
      return seen(await postChat(h, chat(), headers));
    },
  },
  missing_provider_key: {
    status: 401,
    provoke: async () => {
      const { authorization: _, ...headers } = h.headers;
      return seen(await postChat(h, chat(), headers));
    },
  },
  unknown_route: { status: 404, provoke: async () => seen(await fetch(`${h.gateway.url}/v1/nope`, { headers: { 'x-gateway-api-key': GATEWAY_KEY } })) },
  request_too_large: { status: 413, provoke: async () => seen(await postChat(h, chat({ messages: [{ role: 'user', content: 'x'.repeat(100 * KiB) }] }))) },
  overloaded: {
    status: 503,
    provoke: () =>
      ownGateway({ maxInflightBytes: 10 * MiB }, async (g) => {
        // A body declared and never sent holds its bytes (twice) in the budget; the next does not fit.
        const holder = connect(g.gateway.port, '127.0.0.1');
        cleanups.push(() => holder.destroy());
        holder.on('error', () => {});
        holder.write(rawChatHead(g.gateway.port, `content-length: ${4 * MiB}\r\n`));
        for (let i = 0; i < 1_000 && g.gateway.budget.held === 0; i++) await new Promise((r) => setTimeout(r, 10));
        return rawAnswer(g.gateway.port, rawChatHead(g.gateway.port, `content-length: ${2 * MiB}\r\n`), cleanups);
      }),
  },
  too_many_connections: {
    status: 503,
    provoke: () =>
      ownGateway({ maxConnections: 1, headersTimeoutMs: 10_000 }, async (g) => {
        // One connection held open takes the only place; the next is refused.
        const held = connect(g.gateway.port, '127.0.0.1');
        cleanups.push(() => held.destroy());
        held.on('error', () => {});
        await new Promise((r) => held.once('connect', r));
        await new Promise((r) => setTimeout(r, 50));
        return rawAnswer(g.gateway.port, 'GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n', cleanups);
      }),
  },
  upstream_answer_too_large: {
    status: 502,
    provoke: async () => {
      h.emulator.enqueue({ status: 200, body: { candidates: [{ content: { role: 'model', parts: [{ text: 'x'.repeat(128 * KiB) }] }, finishReason: 'STOP', index: 0 }] } });
      return seen(await postChat(h, chat()));
    },
  },
  event_too_large: {
    status: 502,
    provoke: async () => {
      h.emulator.enqueue({ chunks: [{ data: { candidates: [{ content: { role: 'model', parts: [{ text: 'x'.repeat(128 * KiB) }] }, index: 0 }] } }] });
      return seen(await postChat(h, chat({ stream: true })));
    },
  },
  all_targets_cooling_down: {
    status: 503,
    provoke: async () => {
      // A target of its own (its own key), so the suite's target stays closed for the other cases.
      const config = { api_key: 'test-cooling-down-key', circuit_breaker: { failure_threshold: 1 } };
      const headers = { ...h.headers, 'x-gateway-config': JSON.stringify(config) };
      h.emulator.enqueue({ status: 500, body: googleError(500, 'Internal error encountered.') });
      await postChat(h, chat(), headers);
      return seen(await postChat(h, chat(), headers));
    },
  },
};

describe('documented error codes', () => {
  const documented = documentedCodes();

  it('docs/errors.md lists exactly the codes this suite provokes', () => {
    expect([...documented].sort()).toStrictEqual(Object.keys(provocations).sort());
  });

  it.each(documented)('%s is answered as documented', async (code) => {
    const p = provocations[code];
    expect(p, `no provocation for the documented code ${code}`).toBeDefined();
    const got = await p!.provoke();
    expect({ status: got.status, code: got.code }).toStrictEqual({ status: p!.status, code });
    if (got.status === 503) expect(Number(got.retryAfter)).toBeGreaterThanOrEqual(1);
  });
});
