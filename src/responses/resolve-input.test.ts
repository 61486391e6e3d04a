import { describe, expect, it } from 'vitest';
import { parseResponsesRequest } from './parse-responses-request.js';
import { itemId, newResponseId } from './response-ids.js';
import type { ResponseObject } from './response-object.js';
import { createMemoryResponseStore, type StoredResponse } from './response-store.js';
import { resolveInput } from './resolve-input.js';
import { OMITTED_MEDIA_TEXT, stripMedia } from './stored-media.js';

function stored(previous: string | null, userText: string, answer: string): StoredResponse {
  const id = newResponseId();
  return {
    input: [{ type: 'message', id: itemId(id, 'msg', 0), role: 'user', content: userText }],
    response: {
      id,
      previous_response_id: previous,
      output: [
        {
          type: 'message',
          id: itemId(id, 'msg', 1),
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: answer, annotations: [], logprobs: [] }],
          thought_signature: `sig-${answer}`,
        },
        { type: 'function_call', id: itemId(id, 'fc', 2), call_id: `call-${answer}`, name: 'f', arguments: '{}', status: 'completed', thought_signature: `fsig-${answer}` },
      ],
    } as unknown as ResponseObject,
  };
}

async function world() {
  const store = createMemoryResponseStore({ maxBytes: 1_000_000, ttlMs: 60_000 });
  const a = stored(null, 'one', 'A');
  const b = stored(a.response.id, 'two', 'B');
  await store.put(a);
  await store.put(b);
  return { store, a, b };
}

const req = (body: Record<string, unknown>) => parseResponsesRequest({ model: 'm', ...body });
const NEW = newResponseId();

describe('resolveInput', () => {
  it('previous_response_id replays the whole chain, oldest first, then the new input with ids', async () => {
    const { store, a, b } = await world();
    const out = await resolveInput(req({ previous_response_id: b.response.id, input: 'three' }), store, NEW);
    expect(out.items.map((i) => [i.item.id, i.param])).toStrictEqual([
      [a.input[0]!.id, 'previous_response_id'],
      [a.response.output[0]!.id, 'previous_response_id'],
      [a.response.output[1]!.id, 'previous_response_id'],
      [b.input[0]!.id, 'previous_response_id'],
      [b.response.output[0]!.id, 'previous_response_id'],
      [b.response.output[1]!.id, 'previous_response_id'],
      [itemId(NEW, 'msg', 0), 'input[0]'],
    ]);
    expect(out.own).toStrictEqual([{ type: 'message', role: 'user', content: 'three', id: itemId(NEW, 'msg', 0) }]);
  });

  it('an unknown previous_response_id → 404 naming it; a missing link → 404 naming the link', async () => {
    const { store, a, b } = await world();
    await expect(resolveInput(req({ previous_response_id: 'resp_nope', input: 'x' }), store, NEW)).rejects.toMatchObject({
      status: 404,
      param: 'previous_response_id',
      message: expect.stringContaining('resp_nope'),
    });
    await store.delete(a.response.id);
    await expect(resolveInput(req({ previous_response_id: b.response.id, input: 'x' }), store, NEW)).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining(a.response.id),
    });
  });

  it('item_reference → the stored item (input or output); unknown → 400 naming the item', async () => {
    const { store, a } = await world();
    const out = await resolveInput(
      req({ input: [{ type: 'item_reference', id: a.input[0]!.id }, { type: 'item_reference', id: a.response.output[0]!.id }, { role: 'user', content: 'more' }] }),
      store,
      NEW,
    );
    expect(out.items.map((i) => [i.item, i.param])).toStrictEqual([
      [a.input[0], 'input[0]'],
      [a.response.output[0], 'input[1]'],
      [{ type: 'message', role: 'user', content: 'more', id: itemId(NEW, 'msg', 2) }, 'input[2]'],
    ]);
    await expect(resolveInput(req({ input: [{ role: 'user', content: 'x' }, { type: 'item_reference', id: 'msg_gone' }] }), store, NEW)).rejects.toMatchObject({
      status: 400,
      param: 'input[1]',
      message: expect.stringContaining('msg_gone'),
    });
  });

  it('puts stored signatures back on items returned without them (by id, or by call_id alone)', async () => {
    const { store, a } = await world();
    const out = await resolveInput(
      req({
        input: [
          { role: 'user', content: 'one' },
          { type: 'message', role: 'assistant', id: a.response.output[0]!.id, content: [{ type: 'output_text', text: 'A' }] },
          { type: 'function_call', call_id: 'call-A', name: 'f', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call-A', output: 'ok' },
          { type: 'function_call', call_id: 'call-unknown', name: 'f', arguments: '{}' },
        ],
      }),
      store,
      NEW,
    );
    expect(out.items.map((i) => ('thought_signature' in i.item ? i.item.thought_signature : undefined))).toStrictEqual([undefined, 'sig-A', 'fsig-A', undefined, undefined]);
  });

  it('stored media bodies are gone: a replayed data URI becomes a note, with a warning', async () => {
    const store = createMemoryResponseStore({ maxBytes: 1_000_000, ttlMs: 60_000 });
    const id = newResponseId();
    const image = {
      type: 'message' as const,
      id: itemId(id, 'msg', 0),
      role: 'user' as const,
      content: [
        { type: 'input_text' as const, text: 'see' },
        { type: 'input_image' as const, image_url: 'data:image/png;base64,AAAA', detail: 'auto' as const },
        { type: 'input_image' as const, image_url: 'https://example.com/cat.png' },
      ],
    };
    const kept = stripMedia(image);
    expect(JSON.stringify(kept)).not.toContain('AAAA');
    await store.put({ input: [kept], response: { id, previous_response_id: null, output: [] } as unknown as ResponseObject });
    const out = await resolveInput(req({ previous_response_id: id, input: 'again' }), store, NEW);
    expect(out.items[0]!.item).toStrictEqual({
      ...image,
      content: [{ type: 'input_text', text: 'see' }, { type: 'input_text', text: OMITTED_MEDIA_TEXT }, { type: 'input_image', image_url: 'https://example.com/cat.png' }],
    });
    expect(out.warnings).toStrictEqual(['omitted_media']);
  });
});
