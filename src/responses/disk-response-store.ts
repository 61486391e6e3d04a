/**
 * The Responses store on disk (`SIDEGATE_RESPONSES_STORE=disk`), for a sidecar that restarts:
 * one JSON file per response under `<data dir>/responses/`, written atomically, plus one tiny file
 * per function call id under `calls/` naming its response (for signature lookups by call id).
 *
 * Same bounds as the memory store: a record past its TTL is gone on read, and a sweep (at open,
 * then every `SWEEP_EVERY` writes) deletes expired records and the oldest ones past the size cap.
 * Files are 0600 in a 0700 directory; they hold conversation text, never keys or media bodies.
 */
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../keys/write-file-atomic.js';
import { isResponseId } from './response-ids.js';
import { callIdsOf, type ResponseStore, type StoredResponse, type StoreLimits } from './response-store.js';

const SWEEP_EVERY = 50;
const CALL_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

interface FileRecord {
  expiresAt: number;
  record: StoredResponse;
}

export async function createDiskResponseStore(dir: string, limits: StoreLimits): Promise<ResponseStore> {
  const now = limits.now ?? Date.now;
  const callsDir = join(dir, 'calls');
  await mkdir(callsDir, { recursive: true, mode: 0o700 });
  const file = (id: string) => join(dir, `${id}.json`);
  let writes = 0;
  // Records being written: registered synchronously by `put`, so a request that follows the
  // answer at once finds its response before the file is on disk.
  const pending = new Map<string, StoredResponse>();
  /** Deleted while its write was in flight: removed again once the write lands. */
  const cancelled = new Set<string>();
  /** Writes in flight, awaited by `close` so a shutdown never leaves a response half-kept. */
  const writing = new Set<Promise<void>>();

  const read = async (id: string): Promise<FileRecord | undefined> => {
    if (!isResponseId(id)) return undefined;
    let text: string;
    try {
      text = await readFile(file(id), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const parsed = JSON.parse(text) as FileRecord;
      if (parsed.expiresAt <= now()) {
        await remove(id, parsed.record);
        return undefined;
      }
      return parsed;
    } catch {
      return undefined; // a torn file cannot happen (atomic writes); anything else is not ours
    }
  };

  const remove = async (id: string, record?: StoredResponse): Promise<void> => {
    await rm(file(id), { force: true });
    for (const callId of record ? callIdsOf(record) : []) {
      if (CALL_ID.test(callId)) await rm(join(callsDir, callId), { force: true });
    }
  };

  const sweep = async (): Promise<void> => {
    const names = (await readdir(dir)).filter((n) => n.startsWith('resp_') && n.endsWith('.json'));
    const live: Array<{ id: string; bytes: number; mtime: number }> = [];
    for (const name of names) {
      const id = name.slice(0, -'.json'.length);
      const info = await stat(join(dir, name)).catch(() => undefined);
      if (!info) continue;
      if (info.mtimeMs + limits.ttlMs <= now()) await remove(id, (await read(id))?.record);
      else live.push({ id, bytes: info.size, mtime: info.mtimeMs });
    }
    live.sort((a, b) => a.mtime - b.mtime);
    let total = live.reduce((sum, e) => sum + e.bytes, 0);
    for (const entry of live) {
      if (total <= limits.maxBytes) break;
      await remove(entry.id, (await read(entry.id))?.record);
      total -= entry.bytes;
    }
    // Call-id files whose response is gone.
    for (const callId of await readdir(callsDir)) {
      const id = await readFile(join(callsDir, callId), 'utf8').catch(() => '');
      if (!isResponseId(id) || !names.includes(`${id}.json`) || !live.some((e) => e.id === id)) {
        await rm(join(callsDir, callId), { force: true });
      }
    }
  };

  const persist = async (id: string, copy: StoredResponse): Promise<void> => {
    try {
      const body: FileRecord = { expiresAt: now() + limits.ttlMs, record: copy };
      await writeFileAtomic(file(id), JSON.stringify(body));
      for (const callId of callIdsOf(copy)) {
        if (CALL_ID.test(callId)) await writeFileAtomic(join(callsDir, callId), id);
      }
    } finally {
      if (pending.get(id) === copy) pending.delete(id);
    }
    if (cancelled.delete(id)) await remove(id, copy);
    if (++writes % SWEEP_EVERY === 0) await sweep();
  };

  await sweep();

  return {
    async get(id) {
      return pending.get(id) ?? (await read(id))?.record;
    },
    put(record) {
      const id = record.response.id;
      if (!isResponseId(id)) return Promise.reject(new Error('not a response id'));
      const copy = JSON.parse(JSON.stringify(record)) as StoredResponse;
      pending.set(id, copy);
      const write = persist(id, copy);
      writing.add(write);
      return write.finally(() => writing.delete(write));
    },
    async close() {
      await Promise.allSettled([...writing]);
    },
    async delete(id) {
      const wasPending = pending.delete(id);
      if (wasPending) cancelled.add(id);
      const found = await read(id);
      if (!found) return wasPending;
      await remove(id, found.record);
      return true;
    },
    async findCall(callId) {
      for (const [id, record] of pending) if (callIdsOf(record).includes(callId)) return id;
      if (!CALL_ID.test(callId)) return undefined;
      const id = await readFile(join(callsDir, callId), 'utf8').catch(() => undefined);
      return id !== undefined && (await read(id)) ? id : undefined;
    },
  };
}
