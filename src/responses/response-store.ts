/**
 * The Responses store (issue 14 point 4): what `previous_response_id`, `item_reference` and
 * `GET/DELETE /v1/responses/{id}` read. One record per stored response: the response object (its
 * output items with their Gemini thought signatures) and its own input items; a conversation is
 * the chain of records through `previous_response_id`, so nothing is stored twice.
 *
 * Bounded: records expire after a TTL, and the oldest are evicted past a size cap. Per pod by
 * design (DESIGN "At scale"): a sidecar serves one pod, whose requests always find its store.
 * Never holds keys (requests are stored as items, never headers) nor media bodies (the route
 * strips them before `put`, see `strip-media.ts`).
 *
 * This file: the interface and the in-memory implementation (the default).
 */
import type { InputItem } from './responses-request.js';
import type { ResponseObject } from './response-object.js';

/** An input item as stored: never an `item_reference` (resolved first), always with an id. */
export type StoredInputItem = Exclude<InputItem, { type: 'item_reference' }> & { id: string };

export interface StoredResponse {
  response: ResponseObject;
  input: StoredInputItem[];
}

export interface ResponseStore {
  /** Undefined when unknown or expired. */
  get(id: string): Promise<StoredResponse | undefined>;
  put(record: StoredResponse): Promise<void>;
  /** False when unknown or expired. */
  delete(id: string): Promise<boolean>;
  /** The stored response holding a `function_call` output item with this `call_id`. */
  findCall(callId: string): Promise<string | undefined>;
  close?(): Promise<void>;
}

export interface StoreLimits {
  /** Total size of the stored records (their JSON), in bytes. */
  maxBytes: number;
  ttlMs: number;
  /** Injected for tests. */
  now?: () => number;
}

/** `call_id`s of a record's function calls (for signature lookups by call id). */
export function callIdsOf(record: StoredResponse): string[] {
  return record.response.output.filter((i) => i.type === 'function_call').map((i) => (i as { call_id: string }).call_id);
}

interface Entry {
  record: StoredResponse;
  bytes: number;
  expiresAt: number;
}

export function createMemoryResponseStore(limits: StoreLimits): ResponseStore {
  const now = limits.now ?? Date.now;
  // A Map iterates in insertion order: the first entry is the oldest.
  const entries = new Map<string, Entry>();
  const calls = new Map<string, string>();
  let total = 0;

  const remove = (id: string): boolean => {
    const entry = entries.get(id);
    if (!entry) return false;
    entries.delete(id);
    total -= entry.bytes;
    for (const callId of callIdsOf(entry.record)) if (calls.get(callId) === id) calls.delete(callId);
    return true;
  };
  const live = (id: string): Entry | undefined => {
    const entry = entries.get(id);
    if (entry && entry.expiresAt <= now()) {
      remove(id);
      return undefined;
    }
    return entry;
  };

  return {
    async get(id) {
      return live(id)?.record;
    },
    async put(record) {
      const id = record.response.id;
      remove(id);
      // Stored as a copy, so a later change to the caller's objects cannot reach the store.
      const json = JSON.stringify(record);
      const entry: Entry = { record: JSON.parse(json) as StoredResponse, bytes: Buffer.byteLength(json), expiresAt: now() + limits.ttlMs };
      if (entry.bytes > limits.maxBytes) return; // larger than the whole store: not kept
      entries.set(id, entry);
      total += entry.bytes;
      for (const callId of callIdsOf(record)) calls.set(callId, id);
      for (const [oldest, e] of entries) {
        if (total <= limits.maxBytes && e.expiresAt > now()) break;
        remove(oldest);
      }
    },
    async delete(id) {
      return live(id) !== undefined && remove(id);
    },
    async findCall(callId) {
      const id = calls.get(callId);
      return id !== undefined && live(id) ? id : undefined;
    },
  };
}
