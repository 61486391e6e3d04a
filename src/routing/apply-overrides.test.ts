import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import { applyOverrides } from './apply-overrides.js';

const base: ChatCompletionRequest = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], temperature: 1 };

describe('applyOverrides', () => {
  it.each([
    { name: 'no overrides: the same object', overrides: undefined, want: base },
    { name: 'empty overrides', overrides: {}, want: base },
    { name: 'scalars win over the client', overrides: { temperature: 0.1, max_tokens: 5 }, want: { ...base, temperature: 0.1, max_tokens: 5 } },
    { name: 'model', overrides: { model: 'gpt-4o-mini' }, want: { ...base, model: 'gpt-4o-mini' } },
    {
      name: 'messages are replaced, not dropped',
      overrides: { messages: [{ role: 'system', content: 'be terse' }, { role: 'user', content: 'hi' }] },
      want: { ...base, messages: [{ role: 'system', content: 'be terse' }, { role: 'user', content: 'hi' }] },
    },
    { name: 'stream stays what the client asked', overrides: { stream: true }, want: base },
  ])('$name', ({ overrides, want }) => {
    expect(applyOverrides(base, overrides)).toStrictEqual(want);
  });

  it('keeps a streamed request streamed', () => {
    expect(applyOverrides({ ...base, stream: true }, { stream: false }).stream).toBe(true);
  });

  it('never mutates the request', () => {
    const request = structuredClone(base);
    applyOverrides(request, { temperature: 0, messages: [{ role: 'user', content: 'other' }] });
    expect(request).toStrictEqual(base);
  });

  it.each([
    { name: 'a bad scalar', overrides: { temperature: 'hot' }, param: 'temperature' },
    { name: 'a bad message', overrides: { messages: [{ role: 'user', content: 1 }] }, param: 'messages[0].content' },
    { name: 'an unknown field', overrides: { temprature: 1 }, param: 'temprature' },
  ])('400 naming the field: $name', ({ overrides, param }) => {
    expect(() => applyOverrides(base, overrides)).toThrow(expect.objectContaining({ status: 400, param, code: 'invalid_override_params' }));
  });
});
