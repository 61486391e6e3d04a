/**
 * Safety settings (issue 23 row 6; docs/gemini-fields.md): `safety_settings` (LiteLLM's request
 * extension, Gemini's enums) → `safetySettings`; a blocked prompt still answers `content_filter`,
 * and non-strict the answer carries Gemini's `promptFeedback` / `safetyRatings` so a user sees why.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { apiError, collect, finishReason, NON_STRICT } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const settings = [
  { category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_LOW_AND_ABOVE' },
  { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', threshold: 'OFF' },
];
const ask = (content: string) => ({ model: 'gemini-2.5-flash', messages: [{ role: 'user' as const, content }], safety_settings: settings });
const upstream = (text: string) => ({ contents: [{ role: 'user', parts: [{ text }] }], safetySettings: settings });
/** The emulator rates "insult" prompts HARASSMENT MEDIUM (src/emulator/features/safety.ts). */
const ratings = (harassment: string, blocked = false) => [
  { category: 'HARM_CATEGORY_HARASSMENT', probability: harassment, ...(blocked ? { blocked: true } : {}) },
  { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'NEGLIGIBLE' },
];

describe('safety_settings', () => {
  it('sends safetySettings; non-strict answers carry the candidate safetyRatings', async () => {
    const loose = await h.client.chat.completions.create(ask('hello') as never, NON_STRICT);
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstream('hello'));
    expect((loose.choices[0] as unknown as Record<string, unknown>).safetyRatings).toStrictEqual(ratings('NEGLIGIBLE'));
    const strict = await h.client.chat.completions.create(ask('hello') as never);
    expect(h.emulator.requests[1]!.body).toStrictEqual(upstream('hello'));
    expect(JSON.stringify(strict)).not.toContain('safetyRatings');
  });

  it('a blocked prompt answers content_filter; non-strict with the promptFeedback', async () => {
    const loose = await h.client.chat.completions.create(ask('write an insult') as never, NON_STRICT);
    expect(loose.choices[0]!.finish_reason).toBe('content_filter');
    expect(loose.choices[0]!.message.content).toBeNull();
    expect((loose as unknown as Record<string, unknown>).promptFeedback).toStrictEqual({ blockReason: 'SAFETY', safetyRatings: ratings('MEDIUM', true) });
    const strict = await h.client.chat.completions.create(ask('write an insult') as never);
    expect(strict.choices[0]!.finish_reason).toBe('content_filter');
    expect(JSON.stringify(strict)).not.toContain('promptFeedback');
  });

  it('streams the block as content_filter; non-strict the first chunk carries the promptFeedback', async () => {
    const loose = await collect(await h.client.chat.completions.create({ ...ask('write an insult'), stream: true } as never, NON_STRICT));
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstream('write an insult'));
    expect(finishReason(loose)).toBe('content_filter');
    expect((loose[0] as unknown as Record<string, unknown>).promptFeedback).toStrictEqual({ blockReason: 'SAFETY', safetyRatings: ratings('MEDIUM', true) });
    const strict = await collect(await h.client.chat.completions.create({ ...ask('write an insult'), stream: true } as never));
    expect(finishReason(strict)).toBe('content_filter');
    expect(JSON.stringify(strict)).not.toContain('promptFeedback');
  });

  it('a threshold that does not block a MEDIUM rating lets the prompt through', async () => {
    const out = await h.client.chat.completions.create(
      { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'write an insult' }], safety_settings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }] } as never,
    );
    expect(out.choices[0]!.finish_reason).toBe('stop');
  });

  it.each([
    { name: 'an unknown category', value: [{ category: 'HARM_CATEGORY_JAILBREAK', threshold: 'OFF' }], param: 'safety_settings[0].category' },
    {
      name: 'two settings for one category',
      value: [
        { category: 'HARM_CATEGORY_HARASSMENT', threshold: 'OFF' },
        { category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' },
      ],
      param: 'safety_settings',
    },
  ])('$name → 400 naming the field, nothing sent', async ({ value, param }) => {
    const err = await apiError(h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }], safety_settings: value } as never));
    expect(err.status).toBe(400);
    expect(err.param).toBe(param);
    expect(h.emulator.requests).toHaveLength(0);
  });
});
