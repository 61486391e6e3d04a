/**
 * A request's state, read from the store before translation (issue 14 point 4): the conversation
 * before it (`previous_response_id`, followed back through the chain), its own input items with
 * every `item_reference` replaced by the stored item it names, and Gemini thought signatures put
 * back on items the client returned without them (strict clients drop non-OpenAI fields; the
 * Vercel AI SDK sends function calls by `call_id` only). I/O only through the `ResponseStore`.
 *
 * Unknown or expired ids: `previous_response_id` → 404 naming it; an `item_reference` → 400 naming
 * the item (`input[3]`).
 */
import { InvalidRequestError, NotFoundError } from '../errors.js';
import type { ResponsesRequest, InputItem } from './responses-request.js';
import { itemId, responseIdOfItem, type ItemPrefix } from './response-ids.js';
import type { OutputItem } from './response-object.js';
import type { ResponseStore, StoredInputItem, StoredResponse } from './response-store.js';
import { replayMedia } from './stored-media.js';
import type { ResolvedItem } from './to-chat-request.js';

/** Longest `previous_response_id` chain followed (a guard against a cycle in a corrupt store). */
const MAX_CHAIN = 10_000;

export interface ResolvedInput {
  /** History first, then this request's items, ready for `toChatRequest`. */
  items: ResolvedItem[];
  /** This request's own input items, with ids, as the store will keep them (before media stripping). */
  own: StoredInputItem[];
  warnings: string[];
}

const PREFIX: Record<StoredInputItem['type'], ItemPrefix> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  reasoning: 'rs',
  code_interpreter_call: 'ci',
  web_search_call: 'ws',
};

function asInput(item: OutputItem): StoredInputItem {
  return item as unknown as StoredInputItem;
}

function findItem(record: StoredResponse, id: string): StoredInputItem | undefined {
  return record.input.find((i) => i.id === id) ?? record.response.output.map(asInput).find((i) => i.id === id);
}

async function chain(store: ResponseStore, first: string): Promise<StoredResponse[]> {
  const records: StoredResponse[] = [];
  const seen = new Set<string>();
  for (let id: string | null = first; id !== null && records.length < MAX_CHAIN && !seen.has(id); ) {
    seen.add(id);
    const record = await store.get(id);
    if (!record) {
      const message =
        id === first
          ? `Previous response with id '${id}' not found (unknown, deleted or expired).`
          : `Response '${id}', earlier in the conversation of previous_response_id '${first}', was not found (deleted or expired).`;
      throw new NotFoundError(message, { param: 'previous_response_id', code: 'previous_response_not_found' });
    }
    records.unshift(record);
    id = record.response.previous_response_id;
  }
  return records;
}

/** Puts back a stored signature the client's copy of an item lacks. */
async function restoreSignature(item: StoredInputItem, store: ResponseStore): Promise<StoredInputItem> {
  const needs =
    (item.type === 'function_call' && item.thought_signature === undefined) ||
    (item.type === 'message' && item.role === 'assistant' && item.thought_signature === undefined) ||
    (item.type === 'reasoning' && item.encrypted_content == null);
  if (!needs) return item;
  // A function call is found by its call_id (the Vercel AI SDK sends no item id); anything else by id.
  const responseId = item.type === 'function_call' ? await store.findCall(item.call_id) : responseIdOfItem(item.id);
  if (responseId === undefined) return item;
  const record = await store.get(responseId);
  if (!record) return item;
  const stored =
    item.type === 'function_call'
      ? record.response.output.find((o) => o.type === 'function_call' && o.call_id === item.call_id)
      : record.response.output.find((o) => o.id === item.id);
  if (!stored || stored.type !== item.type) return item;
  if (stored.type === 'function_call' && stored.thought_signature) return { ...item, thought_signature: stored.thought_signature } as StoredInputItem;
  if (stored.type === 'message' && stored.thought_signature) return { ...item, thought_signature: stored.thought_signature } as StoredInputItem;
  if (stored.type === 'reasoning' && stored.encrypted_content) return { ...item, encrypted_content: stored.encrypted_content } as StoredInputItem;
  return item;
}

export async function resolveInput(req: ResponsesRequest, store: ResponseStore, responseId: string): Promise<ResolvedInput> {
  const warnings: string[] = [];
  const items: ResolvedItem[] = [];
  if (req.previous_response_id != null) {
    for (const record of await chain(store, req.previous_response_id)) {
      for (const item of [...record.input, ...record.response.output.map(asInput)]) {
        items.push({ item: replayMedia(item, warnings), param: 'previous_response_id' });
      }
    }
  }

  const input: InputItem[] = req.input === undefined ? [] : typeof req.input === 'string' ? [{ type: 'message', role: 'user', content: req.input }] : req.input;
  const own: StoredInputItem[] = [];
  for (let i = 0; i < input.length; i++) {
    const item = input[i]!;
    const param = `input[${i}]`;
    if (item.type === 'item_reference') {
      const owner = responseIdOfItem(item.id);
      const record = owner === undefined ? undefined : await store.get(owner);
      const found = record && findItem(record, item.id);
      if (!found) {
        throw new InvalidRequestError(`Item with id '${item.id}' not found (unknown, deleted or expired).`, {
          param,
          code: 'item_not_found',
        });
      }
      own.push(found);
      items.push({ item: replayMedia(found, warnings), param });
      continue;
    }
    const withId = { ...item, id: item.id ?? itemId(responseId, PREFIX[item.type], i) } as StoredInputItem;
    const restored = await restoreSignature(withId, store);
    own.push(restored);
    items.push({ item: restored, param });
  }
  return { items, own, warnings };
}
