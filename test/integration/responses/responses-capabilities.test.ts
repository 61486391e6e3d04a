/**
 * Gemini capabilities through the Responses API (official `openai` SDK → gateway → emulator):
 * reasoning summaries and their signature as `encrypted_content`, web search grounding as
 * annotations, code execution as `code_interpreter_call` items; media bodies never kept in the
 * store; the disk store across a gateway restart.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TINY_PNG_BASE64 } from '../../../src/emulator/index.js';
import { OMITTED_MEDIA_TEXT } from '../../../src/responses/stored-media.js';
import { geminiChunk, geminiReply } from '../capabilities/helpers.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sidegate-responses-it-'));
  h = await startHarness({ dataDir, responsesStore: 'disk' });
});
afterAll(async () => {
  await h.close();
  await rm(dataDir, { recursive: true, force: true });
});
beforeEach(() => h.emulator.reset());

describe('Responses capabilities', () => {
  it('reasoning {effort, summary} on Gemini 3 → thinkingLevel with thoughts; the summary is a reasoning item, its signature encrypted_content when included', async () => {
    h.emulator.enqueue(
      geminiReply([{ text: 'Planning the answer.', thought: true, thoughtSignature: 'c2lnLXRob3VnaHQ=' }, { text: '42.' }], {}, 'gemini-3-flash-preview'),
    );
    const r = await h.client.responses.create({
      model: 'gemini-3-flash-preview',
      input: 'Meaning of life?',
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
    });
    expect(h.emulator.requests[0]!.body).toMatchObject({ generationConfig: { thinkingConfig: { thinkingLevel: 'LOW', includeThoughts: true } } });
    expect(r.output.map((i) => i.type)).toStrictEqual(['reasoning', 'message']);
    expect(r.output[0]).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Planning the answer.' }], encrypted_content: 'c2lnLXRob3VnaHQ=' });
    expect(r.output_text).toBe('42.');
    expect(r.reasoning).toStrictEqual({ effort: 'low', summary: 'auto' });
  });

  it('web_search → googleSearch; grounding → url_citation annotations and a web_search_call item, streamed too', async () => {
    const grounding = {
      webSearchQueries: ['euro 2024 winner'],
      groundingChunks: [{ web: { uri: 'https://example.com/euro', title: 'example.com' } }],
      groundingSupports: [{ segment: { startIndex: 0, endIndex: 10, text: 'Spain won.' }, groundingChunkIndices: [0] }],
    };
    h.emulator.enqueue(geminiReply([{ text: 'Spain won.' }], { groundingMetadata: grounding }));
    const r = await h.client.responses.create({ model: 'gemini-2.5-flash', input: 'Who won Euro 2024?', tools: [{ type: 'web_search' }] });
    expect(h.emulator.requests[0]!.body).toMatchObject({ tools: [{ googleSearch: {} }] });
    const annotation = { type: 'url_citation', start_index: 0, end_index: 10, url: 'https://example.com/euro', title: 'example.com' };
    expect(r.output).toMatchObject([
      { type: 'message', content: [{ type: 'output_text', text: 'Spain won.', annotations: [annotation] }] },
      { type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'euro 2024 winner', sources: [{ type: 'url', url: 'https://example.com/euro' }] } },
    ]);

    h.emulator.enqueue({ chunks: [geminiChunk([{ text: 'Spain won.' }], { finishReason: 'STOP', groundingMetadata: grounding })] });
    const stream = await h.client.responses.create({ model: 'gemini-2.5-flash', input: 'Who won?', tools: [{ type: 'web_search_preview' }], stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    expect(events.find((e) => e.type === 'response.output_text.annotation.added')).toMatchObject({ annotation });
  });

  it('code_interpreter → codeExecution; code and its output come back as a code_interpreter_call item', async () => {
    h.emulator.enqueue(
      geminiReply([
        { text: 'Computing.' },
        { executableCode: { language: 'PYTHON', code: 'print(6*7)' } },
        { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '42\n' } },
        { text: 'It is 42.' },
      ]),
    );
    const r = await h.client.responses.create({ model: 'gemini-2.5-flash', input: '6*7?', tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] });
    expect(h.emulator.requests[0]!.body).toMatchObject({ tools: [{ codeExecution: {} }] });
    expect(r.output).toMatchObject([
      { type: 'message', content: [{ text: 'Computing.' }] },
      { type: 'code_interpreter_call', code: 'print(6*7)', outputs: [{ type: 'logs', logs: '42\n' }], status: 'completed' },
      { type: 'message', content: [{ text: 'It is 42.' }] },
    ]);
    // Sent back, the turn is the same model parts again.
    h.emulator.enqueue(geminiReply([{ text: 'Yes.' }]));
    await h.client.responses.create({ model: 'gemini-2.5-flash', input: 'Sure?', previous_response_id: r.id });
    expect((h.emulator.requests[1]!.body as { contents: unknown[] }).contents[1]).toStrictEqual({
      role: 'model',
      parts: [
        { text: 'Computing.' },
        { executableCode: { language: 'PYTHON', code: 'print(6*7)' } },
        { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '42\n' } },
        { text: 'It is 42.' },
      ],
    });
  });

  it('an input image reaches Gemini, is not kept on disk (nor any key), and a later turn, after a restart, is told it was not kept', async () => {
    h.emulator.enqueue(geminiReply([{ text: 'A pixel.' }]));
    const image = `data:image/png;base64,${TINY_PNG_BASE64}`;
    const first = await h.client.responses.create({
      model: 'gemini-2.5-flash',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: image, detail: 'auto' }] }],
    });
    expect((h.emulator.requests[0]!.body as { contents: unknown[] }).contents[0]).toStrictEqual({
      role: 'user',
      parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } }],
    });
    // A restart: the gateway waits for the store's writes on close, and reads them back after.
    await h.close();
    h = await startHarness({ dataDir, responsesStore: 'disk' });
    h.emulator.enqueue(geminiReply([{ text: 'Still a pixel.' }]));
    const files = await readdir(join(dataDir, 'responses'));
    const stored = await readFile(join(dataDir, 'responses', `${first.id}.json`), 'utf8');
    expect(files).toContain(`${first.id}.json`);
    expect(stored).not.toContain(TINY_PNG_BASE64);
    expect(stored).not.toContain('test-provider-key');

    const items = await h.client.responses.inputItems.list(first.id);
    expect(items.data[0]).toMatchObject({ content: [{ type: 'input_text' }, { type: 'input_image', image_url: null }] });

    await h.client.responses.create({ model: 'gemini-2.5-flash', input: 'And now?', previous_response_id: first.id });
    expect((h.emulator.requests[0]!.body as { contents: unknown[] }).contents[0]).toStrictEqual({
      role: 'user',
      parts: [{ text: 'What is this?' }, { text: OMITTED_MEDIA_TEXT }],
    });
  });

  it('the disk store survives a gateway restart', async () => {
    h.emulator.enqueue(geminiReply([{ text: 'Noted: blue.' }]));
    const first = await h.client.responses.create({ model: 'gemini-2.5-flash', input: 'My colour is blue.' });
    await h.close();
    h = await startHarness({ dataDir, responsesStore: 'disk' });
    h.emulator.enqueue(geminiReply([{ text: 'Blue.' }]));
    const second = await h.client.responses.create({ model: 'gemini-2.5-flash', input: 'My colour?', previous_response_id: first.id });
    expect(second.output_text).toBe('Blue.');
    expect(h.emulator.requests[0]!.body).toStrictEqual({
      contents: [
        { role: 'user', parts: [{ text: 'My colour is blue.' }] },
        { role: 'model', parts: [{ text: 'Noted: blue.' }] },
        { role: 'user', parts: [{ text: 'My colour?' }] },
      ],
    });
  });
});
