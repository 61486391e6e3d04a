/**
 * The in-flight bytes budget (issue 15 item 7) over real sockets: a declared body that does not
 * fit is refused with 503 + Retry-After before it is read, a chunked body as soon as it no
 * longer fits, and an upstream answer over its own cap is a clear 502.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postChat, rawChatHead, startHarness, type Harness } from './harness.js';

const MiB = 1024 * 1024;

function open(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  let onData: (() => void) | undefined;
  socket.on('data', (d) => {
    received += d.toString('latin1');
    onData?.();
  });
  socket.on('error', () => {});
  return {
    socket,
    received: () => received,
    /** Resolves once a whole head has arrived. */
    answerHead: () =>
      new Promise<string>((resolve) => {
        const check = () => {
          if (received.includes('\r\n\r\n')) resolve(received);
        };
        onData = check;
        check();
      }),
  };
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('in-flight bytes budget', () => {
  it('refuses a declared body that does not fit with 503 and Retry-After before reading it, and admits again once room is back', async () => {
    harness = await startHarness({ maxInflightBytes: 10 * MiB });
    const port = harness.gateway.port;
    // 4 MiB declared, held 2× = 8 MiB of 10: the body is never sent, so it stays in flight.
    const first = open(port);
    first.socket.write(rawChatHead(port, `content-length: ${4 * MiB}\r\n`));
    // Wait until the holder's body is counted (seconds on a busy machine), so the chunked body meets a partly used budget.
    for (let i = 0; i < 1_000 && harness.gateway.budget.held === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(harness.gateway.budget.held).toBeGreaterThan(0);
    expect(harness.gateway.budget.held).toBe(8 * MiB);

    const second = open(port);
    second.socket.write(rawChatHead(port, `content-length: ${2 * MiB}\r\n`)); // only the head: its body is never needed
    const answer = await second.answerHead();
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer.toLowerCase()).toContain('retry-after: 1');
    expect(answer.toLowerCase()).toContain('connection: close');

    first.socket.destroy();
    for (let i = 0; i < 100 && harness.gateway.budget.held !== 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(harness.gateway.budget.held).toBe(0);
    const ok = await postChat(harness, { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x'.repeat(2 * MiB) }] });
    expect(ok.status).toBe(200);
    expect(harness.gateway.budget.held).toBe(0);
  });

  it('answers 413 to a declared body larger than the whole budget', async () => {
    harness = await startHarness({ maxInflightBytes: 4 * MiB });
    const c = open(harness.gateway.port);
    c.socket.write(rawChatHead(harness.gateway.port, `content-length: ${3 * MiB}\r\n`));
    expect(await c.answerHead()).toMatch(/^HTTP\/1\.1 413 /);
    c.socket.destroy();
  });

  it('counts a chunked body as it arrives and refuses it once it no longer fits', async () => {
    harness = await startHarness({ maxInflightBytes: 6 * MiB });
    const holder = open(harness.gateway.port);
    holder.socket.write(rawChatHead(harness.gateway.port, `content-length: ${2 * MiB}\r\n`)); // holds 4 MiB
    // Wait until the holder's body is counted (seconds on a busy machine), so the chunked body meets a partly used budget.
    for (let i = 0; i < 1_000 && harness.gateway.budget.held === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(harness.gateway.budget.held).toBeGreaterThan(0);
    const c = open(harness.gateway.port);
    c.socket.write(rawChatHead(harness.gateway.port, 'transfer-encoding: chunked\r\n'));
    const piece = Buffer.alloc(512 * 1024, 'a');
    for (let i = 0; i < 8 && !c.received(); i++) {
      c.socket.write(`${piece.length.toString(16)}\r\n`);
      c.socket.write(piece);
      c.socket.write('\r\n');
      await new Promise((r) => setTimeout(r, 20));
    }
    const answer = await c.answerHead();
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer.slice(answer.indexOf('\r\n\r\n'))).toContain('overloaded');
    c.socket.destroy();
    holder.socket.destroy();
  });

  it('answers a clear 502 when the upstream answer is over SIDEGATE_MAX_UPSTREAM_ANSWER_BYTES', async () => {
    harness = await startHarness({ maxUpstreamAnswerBytes: 64 * 1024 });
    harness.emulator.enqueue({
      status: 200,
      body: {
        candidates: [{ content: { role: 'model', parts: [{ text: 'y'.repeat(100_000) }] }, finishReason: 'STOP', index: 0 }],
      },
    });
    const res = await postChat(harness, { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(502);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('upstream_answer_too_large');
    expect(error.message).toContain('SIDEGATE_MAX_UPSTREAM_ANSWER_BYTES');
    expect(harness.gateway.budget.held).toBe(0);
  });
});
