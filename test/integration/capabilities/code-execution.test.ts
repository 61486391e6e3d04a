/**
 * Code execution (issue 3 item 3, DESIGN Decision 9): `{type: "code_execution"}` → the
 * `codeExecution` tool; `executableCode` / `codeExecutionResult` parts are never lost: fenced
 * blocks in `message.content` in part order, structured `content_parts` entries when strict
 * compliance is off.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { collect, deltas, finishReason, geminiChunk, geminiReply, NON_STRICT, streamedText } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const request = {
  model: 'gemini-2.5-flash',
  messages: [{ role: 'user' as const, content: 'sum 1..10' }],
  tools: [{ type: 'code_execution' } as never],
};
const upstreamBody = {
  contents: [{ role: 'user', parts: [{ text: 'sum 1..10' }] }],
  tools: [{ codeExecution: {} }],
};
// The emulator's default answer: text, executableCode, codeExecutionResult, text.
const content = 'Let me run some code for that.\n```python\nprint("sum 1..10")\n```\n```\nsum 1..10\n```\nEcho: sum 1..10';
const contentParts = [
  { type: 'text', text: 'Let me run some code for that.' },
  { type: 'executable_code', language: 'python', code: 'print("sum 1..10")' },
  { type: 'code_execution_result', outcome: 'OUTCOME_OK', output: 'sum 1..10\n' },
  { type: 'text', text: 'Echo: sum 1..10' },
];

describe('non-streaming', () => {
  it('puts code and its output in content as fenced blocks, in part order (strict)', async () => {
    const completion = await h.client.chat.completions.create(request);
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstreamBody);
    const message = completion.choices[0]!.message as unknown as Record<string, unknown>;
    expect(message.content).toBe(content);
    expect(message).not.toHaveProperty('content_parts');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
  });

  it('adds structured content_parts entries when strict compliance is off', async () => {
    const completion = await h.client.chat.completions.create(request, NON_STRICT);
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstreamBody);
    const message = completion.choices[0]!.message as unknown as Record<string, unknown>;
    expect(message.content).toBe(content);
    expect(message.content_parts).toStrictEqual(contentParts);
  });

  it('keeps a failed run and several runs in order', async () => {
    h.emulator.enqueue(
      geminiReply([
        { executableCode: { language: 'PYTHON', code: '1/0' } },
        { codeExecutionResult: { outcome: 'OUTCOME_FAILED', output: 'ZeroDivisionError' } },
        { text: 'Retrying.' },
        { executableCode: { language: 'PYTHON', code: 'print(2)' } },
        { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '2\n' } },
      ]),
    );
    const completion = await h.client.chat.completions.create(request, NON_STRICT);
    const message = completion.choices[0]!.message as unknown as Record<string, unknown>;
    expect(message.content).toBe('```python\n1/0\n```\n```\nZeroDivisionError\n```\nRetrying.\n```python\nprint(2)\n```\n```\n2\n```\n');
    expect(message.content_parts).toStrictEqual([
      { type: 'executable_code', language: 'python', code: '1/0' },
      { type: 'code_execution_result', outcome: 'OUTCOME_FAILED', output: 'ZeroDivisionError' },
      { type: 'text', text: 'Retrying.' },
      { type: 'executable_code', language: 'python', code: 'print(2)' },
      { type: 'code_execution_result', outcome: 'OUTCOME_OK', output: '2\n' },
    ]);
  });
});

describe('streaming', () => {
  it('streams the same content, code blocks on their own lines even when they start a new chunk', async () => {
    const chunks = await collect(await h.client.chat.completions.create({ ...request, stream: true }));
    expect(h.emulator.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstreamBody);
    expect(streamedText(chunks)).toBe(content);
    expect(deltas(chunks).some((d) => 'content_parts' in d)).toBe(false);
    expect(finishReason(chunks)).toBe('stop');
  });

  it('streams the code entries as delta.content_parts when strict compliance is off', async () => {
    h.emulator.enqueue({
      chunks: [
        geminiChunk([{ text: 'Running' }]),
        geminiChunk([{ executableCode: { language: 'PYTHON', code: 'print(1)' } }]),
        geminiChunk([{ codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1\n' } }, { text: 'Done.' }], { finishReason: 'STOP' }),
      ],
    });
    const chunks = await collect(await h.client.chat.completions.create({ ...request, stream: true }, NON_STRICT));
    expect(streamedText(chunks)).toBe('Running\n```python\nprint(1)\n```\n```\n1\n```\nDone.');
    // Accumulated, the streamed entries are the whole answer in order, text before the code included.
    expect(deltas(chunks).flatMap((d) => (d.content_parts as unknown[] | undefined) ?? [])).toStrictEqual([
      { type: 'text', text: 'Running' },
      { type: 'executable_code', language: 'python', code: 'print(1)' },
      { type: 'code_execution_result', outcome: 'OUTCOME_OK', output: '1\n' },
      { type: 'text', text: 'Done.' },
    ]);
  });
});
