/**
 * A body refused with 413 before it was read to its end (src/server/refused-body.ts), over a real
 * socket: the client that goes on sending it reads the 413, its writes are not reset, and the same
 * connection serves its next request; a client that stops sending has its connection cut after the
 * linger time, so no refused connection stays open.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { REFUSED_BODY_LINGER_MS } from '../../src/server/refused-body.js';
import { rawChatHead, startHarness, type Harness } from './harness.js';

const KiB = 1024;
const MAX_BODY = 64 * KiB;
const DECLARED = 1024 * KiB;

const chatHead = (port: number, contentLength: number) => rawChatHead(port, `content-length: ${contentLength}\r\n`);
const smallChat = JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] });

function open(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  const waiters: Array<() => void> = [];
  let closed = false;
  socket.on('data', (d) => {
    received += d.toString('latin1');
    for (const w of waiters.splice(0)) w();
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    closed = true;
    for (const w of waiters.splice(0)) w();
  });
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (done() || closed ? resolve() : waiters.push(check));
      check();
    });
  return {
    socket,
    received: () => received,
    closed: () => closed,
    until,
    /** Writes `data`, resolving with the write's error (EPIPE, ECONNRESET) or undefined. */
    write: (data: string | Buffer) => new Promise<Error | undefined>((resolve) => socket.write(data, (err) => resolve(err ?? undefined))),
  };
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a body refused with 413 before it was read', () => {
  it('lets the client finish sending it, answers 413, and serves the next request on the same connection', async () => {
    harness = await startHarness({ maxBodyBytes: MAX_BODY });
    const port = harness.gateway.port;
    const c = open(port);
    expect(await c.write(chatHead(port, DECLARED))).toBeUndefined();
    await c.until(() => c.received().includes('\r\n\r\n'));
    expect(c.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(c.received().toLowerCase()).not.toContain('connection: close');

    // The client did not wait for the answer: it goes on sending the body it declared.
    const piece = Buffer.alloc(64 * KiB, 'a');
    for (let sent = 0; sent < DECLARED; sent += piece.length) expect(await c.write(piece)).toBeUndefined();

    const before = c.received().length;
    expect(await c.write(chatHead(port, Buffer.byteLength(smallChat)) + smallChat)).toBeUndefined();
    await c.until(() => /HTTP\/1\.1 \d{3} /.test(c.received().slice(before)) && c.received().slice(before).includes('"chat.completion"'));
    expect(c.closed()).toBe(false);
    expect(c.received().slice(before)).toMatch(/^HTTP\/1\.1 200 /);
    expect(harness.emulator.requests).toHaveLength(1); // the refused body never went upstream
    c.socket.destroy();
  });

  it('cuts the connection of a refused body that stops arriving, after the linger time', async () => {
    harness = await startHarness({ maxBodyBytes: MAX_BODY });
    const port = harness.gateway.port;
    const c = open(port);
    await c.write(chatHead(port, DECLARED) + 'x'.repeat(1000)); // then nothing more
    await c.until(() => c.received().includes('\r\n\r\n'));
    expect(c.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(c.closed()).toBe(false);
    await c.until(() => false); // resolves when the gateway closes the connection
    expect(c.closed()).toBe(true);
  }, REFUSED_BODY_LINGER_MS + 10_000);
});
