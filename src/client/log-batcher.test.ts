import { describe, expect, it, vi } from 'vitest';
import { LogBatcher } from './log-batcher.js';

const log = (n: number) => ({ request: { method: 'POST' }, metadata: { spanName: `s${n}` } });

function recorder(status = 200, body = '{"status":"success"}') {
  const calls: Array<{ url: string; headers: Record<string, string>; names: string[] }> = [];
  const fetch = (async (url: string, init: RequestInit) => {
    const logs = JSON.parse(init.body as string) as Array<{ metadata: { spanName: string } }>;
    calls.push({ url, headers: init.headers as Record<string, string>, names: logs.map((l) => l.metadata.spanName) });
    return new Response(body, { status });
  }) as unknown as typeof globalThis.fetch;
  return { calls, fetch };
}

describe('LogBatcher', () => {
  it('sends queued logs in batches of batchSize, in order, with the gateway key', async () => {
    const { calls, fetch } = recorder();
    const b = new LogBatcher({ apiKey: 'gw-key', baseURL: 'http://gw/v1/', batchSize: 2, flushIntervalMs: 60_000, fetch });
    for (let i = 0; i < 5; i++) b.add(log(i));
    await b.flush();
    expect(calls.map((c) => c.names)).toStrictEqual([['s0', 's1'], ['s2', 's3'], ['s4']]);
    expect(calls[0]!.url).toBe('http://gw/v1/logs');
    expect(calls[0]!.headers['x-gateway-api-key']).toBe('gw-key');
  });

  it('drops the oldest logs beyond maxQueued', async () => {
    const { calls, fetch } = recorder();
    const b = new LogBatcher({ apiKey: 'k', baseURL: 'http://gw/v1', batchSize: 10, maxQueued: 2, flushIntervalMs: 60_000, fetch });
    for (let i = 0; i < 4; i++) b.add(log(i));
    await b.flush();
    expect(calls.map((c) => c.names)).toStrictEqual([['s2', 's3']]);
  });

  it('reports a refused batch to onError with the gateway message and without the key, never rejecting', async () => {
    const { fetch } = recorder(400, '{"error":{"message":"logs[0].metadata.parentSpanId: bad; key secret-gw-key"}}');
    const errors: Error[] = [];
    const b = new LogBatcher({ apiKey: 'secret-gw-key', baseURL: 'http://gw/v1', flushIntervalMs: 60_000, fetch, onError: (e) => errors.push(e) });
    b.add(log(0));
    await expect(b.flush()).resolves.toBeUndefined();
    expect(errors.map((e) => e.message)).toStrictEqual(['sidegate: the gateway refused 1 log(s) with 400: logs[0].metadata.parentSpanId: bad; key [key]']);
  });

  it('warns once on the console when no onError is given, and survives a throwing fetch', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const fetch = (async () => {
      throw new Error('connect ECONNREFUSED');
    }) as unknown as typeof globalThis.fetch;
    const b = new LogBatcher({ apiKey: 'k', baseURL: 'http://gw/v1', flushIntervalMs: 60_000, fetch });
    b.add(log(0));
    await b.flush();
    b.add(log(1));
    await b.flush();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain('ECONNREFUSED');
    warn.mockRestore();
  });

  it('survives an onError that throws', async () => {
    const { fetch } = recorder(500, 'oops');
    const b = new LogBatcher({ apiKey: 'k', baseURL: 'http://gw/v1', flushIntervalMs: 60_000, fetch, onError: () => { throw new Error('user bug'); } });
    b.add(log(0));
    await expect(b.flush()).resolves.toBeUndefined();
  });
});
