import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiskResponseStore } from './disk-response-store.js';
import { newResponseId } from './response-ids.js';
import type { ResponseObject } from './response-object.js';
import { createMemoryResponseStore, type ResponseStore, type StoredResponse, type StoreLimits } from './response-store.js';

function record(callId = 'call-1', id = newResponseId(), pad = ''): StoredResponse {
  const response = {
    id,
    object: 'response',
    status: 'completed',
    previous_response_id: null,
    output: [{ type: 'function_call', id: 'fc_x', call_id: callId, name: 'f', arguments: '{}', status: 'completed', thought_signature: 'sig' }],
    output_text: pad,
  } as unknown as ResponseObject;
  return { response, input: [{ type: 'message', id: 'msg_x', role: 'user', content: 'hi' }] };
}

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const kinds: Array<[string, (limits: StoreLimits) => Promise<ResponseStore>]> = [
  ['memory', async (limits) => createMemoryResponseStore(limits)],
  [
    'disk',
    async (limits) => {
      const dir = await mkdtemp(join(tmpdir(), 'sidegate-responses-'));
      dirs.push(dir);
      return createDiskResponseStore(join(dir, 'responses'), limits);
    },
  ],
];

describe.each(kinds)('%s response store', (_name, create) => {
  it('keeps, finds by call id, deletes', async () => {
    const store = await create({ maxBytes: 1_000_000, ttlMs: 60_000 });
    const r = record('call-abc');
    await store.put(r);
    expect(await store.get(r.response.id)).toStrictEqual(r);
    expect(await store.findCall('call-abc')).toBe(r.response.id);
    expect(await store.findCall('call-none')).toBeUndefined();
    expect(await store.delete(r.response.id)).toBe(true);
    expect(await store.delete(r.response.id)).toBe(false);
    expect(await store.get(r.response.id)).toBeUndefined();
    expect(await store.findCall('call-abc')).toBeUndefined();
  });

  it('finds a record as soon as put is called, before its write lands', async () => {
    const store = await create({ maxBytes: 1_000_000, ttlMs: 60_000 });
    const r = record('call-now');
    const writing = store.put(r);
    expect(await store.get(r.response.id)).toStrictEqual(r);
    expect(await store.findCall('call-now')).toBe(r.response.id);
    await writing;
  });

  it('forgets a record after its TTL', async () => {
    let now = 1_000_000;
    const store = await create({ maxBytes: 1_000_000, ttlMs: 1_000, now: () => now });
    const r = record();
    await store.put(r);
    now += 999;
    expect(await store.get(r.response.id)).toBeDefined();
    now += 1;
    expect(await store.get(r.response.id)).toBeUndefined();
    expect(await store.findCall('call-1')).toBeUndefined();
  });

  it('keeps a copy, not the caller’s objects', async () => {
    const store = await create({ maxBytes: 1_000_000, ttlMs: 60_000 });
    const r = record();
    await store.put(r);
    r.input[0]!.id = 'changed';
    expect((await store.get(r.response.id))!.input[0]!.id).toBe('msg_x');
  });

  it('answers unknown ids, including ones that are not response ids', async () => {
    const store = await create({ maxBytes: 1_000_000, ttlMs: 60_000 });
    expect(await store.get('resp_00000000000000000000000000000000')).toBeUndefined();
    expect(await store.get('../../etc/passwd')).toBeUndefined();
    expect(await store.findCall('../x')).toBeUndefined();
  });
});

describe('memory response store size cap', () => {
  it('evicts the oldest records past the cap, and never keeps one larger than the cap', async () => {
    const store = createMemoryResponseStore({ maxBytes: 2_000, ttlMs: 60_000 });
    const records = [record('c1', undefined, 'x'.repeat(500)), record('c2', undefined, 'x'.repeat(500)), record('c3', undefined, 'x'.repeat(500))];
    for (const r of records) await store.put(r);
    expect(await store.get(records[0]!.response.id)).toBeUndefined();
    expect(await store.findCall('c1')).toBeUndefined();
    expect(await store.get(records[1]!.response.id)).toBeDefined();
    expect(await store.get(records[2]!.response.id)).toBeDefined();
    const huge = record('c4', undefined, 'x'.repeat(5_000));
    await store.put(huge);
    expect(await store.get(huge.response.id)).toBeUndefined();
    expect(await store.get(records[2]!.response.id)).toBeDefined();
  });
});

describe('disk response store', () => {
  it('survives a restart, writes private files, and sweeps expired records at open', async () => {
    const root = await mkdtemp(join(tmpdir(), 'sidegate-responses-'));
    dirs.push(root);
    const dir = join(root, 'responses');
    let now = Date.now();
    const first = await createDiskResponseStore(dir, { maxBytes: 1_000_000, ttlMs: 60_000, now: () => now });
    const r = record('call-restart');
    await first.put(r);
    const file = join(dir, `${r.response.id}.json`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toContain('call-restart');

    const second = await createDiskResponseStore(dir, { maxBytes: 1_000_000, ttlMs: 60_000, now: () => now });
    expect(await second.get(r.response.id)).toStrictEqual(r);
    expect(await second.findCall('call-restart')).toBe(r.response.id);

    now += 120_000;
    await createDiskResponseStore(dir, { maxBytes: 1_000_000, ttlMs: 60_000, now: () => now });
    expect((await readdir(dir)).filter((n) => n.endsWith('.json'))).toStrictEqual([]);
    expect(await readdir(join(dir, 'calls'))).toStrictEqual([]);
  });
});
