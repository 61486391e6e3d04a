/**
 * Computer use (issue 3 item 4, DESIGN Decision 10; gemini-wire §9): a function tool named
 * `computer_use` → the `computerUse` tool; predefined actions come back as `tool_calls` and go
 * back as `functionCall` parts (with their signatures, so strict compliance must be off on
 * Gemini 3); results come from tool messages or the user-message form, screenshots as inline
 * media of the `functionResponse`.
 */
import type OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TINY_PNG_BASE64 } from '../../../src/emulator/index.js';
import { startHarness, type Harness } from '../harness.js';
import { CALL_ID, collect, deltas, finishReason, NON_STRICT, toolCalls } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const MODEL = 'gemini-3-flash-preview';
const computer: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'computer_use',
    parameters: { environment: 'ENVIRONMENT_BROWSER', excluded_predefined_functions: ['drag_and_drop'] },
  },
};
const computerTool = { computerUse: { environment: 'ENVIRONMENT_BROWSER', excludedPredefinedFunctions: ['drag_and_drop'] } };
const screenshot = `data:image/png;base64,${TINY_PNG_BASE64}`;
const task: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'Find flights SFO to NYC' };
const taskContent = { role: 'user', parts: [{ text: 'Find flights SFO to NYC' }] };


describe('computer use', () => {
  it('sends the computerUse tool and answers a predefined action as a tool call with its signature', async () => {
    const completion = await h.client.chat.completions.create({ model: MODEL, messages: [task], tools: [computer] }, NON_STRICT);
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: [taskContent], tools: [computerTool] });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = toolCalls(choice.message)[0]!;
    expect(call.id).toMatch(CALL_ID);
    expect(call.function.name).toBe('open_web_browser');
    expect(call.function.arguments).toBe('{}');
    expect(call.function.thought_signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
  });

  it('also accepts the computerUse spelling and streams the action', async () => {
    const chunks = await collect(
      await h.client.chat.completions.create(
        {
          model: MODEL,
          messages: [task],
          tools: [{ type: 'function', function: { name: 'computerUse', parameters: { environment: 'ENVIRONMENT_BROWSER' } } }],
          stream: true,
        },
        NON_STRICT,
      ),
    );
    expect(h.emulator.requests[0]!.body).toStrictEqual({
      contents: [taskContent],
      tools: [{ computerUse: { environment: 'ENVIRONMENT_BROWSER' } }],
    });
    const calls = deltas(chunks).flatMap((d) => d.tool_calls ?? []);
    expect(calls.map((c) => [c.index, c.function?.name, c.function?.arguments])).toStrictEqual([[0, 'open_web_browser', '{}']]);
    expect((calls[0]!.function as { thought_signature?: string }).thought_signature).toBeTruthy();
    expect(finishReason(chunks)).toBe('tool_calls');
  });

  it('runs a multi-turn task: tool message results, then the user-message form, screenshots as inline media', async () => {
    // Turn 1: the model opens the browser.
    const first = await h.client.chat.completions.create({ model: MODEL, messages: [task], tools: [computer] }, NON_STRICT);
    const open = toolCalls(first.choices[0]!.message)[0]!;
    const openSignature = open.function.thought_signature!;

    // Turn 2: the result as a tool message (JSON text + screenshot); the model types the query.
    const turn2: OpenAI.ChatCompletionMessageParam[] = [
      task,
      { role: 'assistant', content: null, tool_calls: [open] } as OpenAI.ChatCompletionMessageParam,
      {
        role: 'tool',
        tool_call_id: open.id,
        content: [
          { type: 'text', text: '{"url":"https://www.google.com"}' },
          { type: 'image_url', image_url: { url: screenshot } },
        ] as never,
      },
    ];
    const second = await h.client.chat.completions.create({ model: MODEL, messages: turn2, tools: [computer] }, NON_STRICT);
    const modelTurn1 = {
      role: 'model',
      parts: [{ functionCall: { name: 'open_web_browser', args: {} }, thoughtSignature: openSignature }],
    };
    expect(h.emulator.requests[1]!.body).toStrictEqual({
      contents: [
        taskContent,
        modelTurn1,
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                name: 'open_web_browser',
                response: { url: 'https://www.google.com' },
                parts: [{ inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } }],
              },
            },
          ],
        },
      ],
      tools: [computerTool],
    });
    const type = toolCalls(second.choices[0]!.message)[0]!;
    expect(type.function.name).toBe('type_text_at');
    expect(JSON.parse(type.function.arguments)).toStrictEqual({
      x: 500,
      y: 500,
      text: 'Find flights SFO to NYC',
      press_enter: true,
      clear_before_typing: true,
    });

    // Turn 3: the seed's user-message form answers the pending action (no tool message).
    const third = await h.client.chat.completions.create(
      {
        model: MODEL,
        messages: [
          ...turn2,
          { role: 'assistant', content: null, tool_calls: [type] } as OpenAI.ChatCompletionMessageParam,
          {
            role: 'user',
            content: [
              { type: 'text', text: 'typed; results page is showing' },
              { type: 'image_url', image_url: { url: screenshot } },
            ],
          },
        ],
        tools: [computer],
      },
      NON_STRICT,
    );
    const body = h.emulator.requests[2]!.body as { contents: unknown[] };
    expect(body.contents.slice(3)).toStrictEqual([
      {
        role: 'model',
        parts: [{ functionCall: { name: 'type_text_at', args: JSON.parse(type.function.arguments) }, thoughtSignature: type.function.thought_signature }],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              name: 'type_text_at',
              response: { content: 'typed; results page is showing' },
              parts: [{ inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } }],
            },
          },
        ],
      },
    ]);
    expect(third.choices[0]!.message.content).toBe('Function results: type_text_at returned {"content":"typed; results page is showing"}');
    expect(third.choices[0]!.finish_reason).toBe('stop');
  });

  it('answers several actions of one turn from one user message: one functionResponse each, the screenshot on the last', async () => {
    const signature = Buffer.from('client-kept-signature').toString('base64');
    await h.client.chat.completions.create(
      {
        model: MODEL,
        messages: [
          task,
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call-1', type: 'function', function: { name: 'click_at', arguments: '{"x":10,"y":20}', thought_signature: signature } },
              { id: 'call-2', type: 'function', function: { name: 'key_combination', arguments: '{"keys":"Control+C"}' } },
            ],
          } as OpenAI.ChatCompletionMessageParam,
          { role: 'user', content: [{ type: 'text', text: '{"url":"https://example.com"}' }, { type: 'image_url', image_url: { url: screenshot } }] },
        ],
        tools: [computer],
      },
      NON_STRICT,
    );
    expect((h.emulator.requests[0]!.body as { contents: unknown[] }).contents.slice(1)).toStrictEqual([
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'click_at', args: { x: 10, y: 20 } }, thoughtSignature: signature },
          { functionCall: { name: 'key_combination', args: { keys: 'Control+C' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'click_at', response: { url: 'https://example.com' } } },
          {
            functionResponse: {
              name: 'key_combination',
              response: { url: 'https://example.com' },
              parts: [{ inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } }],
            },
          },
        ],
      },
    ]);
  });
});
