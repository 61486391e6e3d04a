import { describe, expect, it } from 'vitest';
import { convertCacheRequest, type CacheRequest } from './convert-cache-request.js';

const base = 'https://generativelanguage.googleapis.com';

describe('convertCacheRequest', () => {
  it.each<{ name: string; input: CacheRequest; want: unknown }>([
    {
      name: 'messages, tools, tool choice, ttl and name, as a chat call would send them',
      input: {
        model: 'gemini-2.5-flash',
        display_name: 'd',
        ttl: 600,
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: 'U' },
        ],
        tools: [{ type: 'function', function: { name: 'f' } }],
        tool_choice: 'required',
      },
      want: {
        model: 'models/gemini-2.5-flash',
        displayName: 'd',
        contents: [{ role: 'user', parts: [{ text: 'U' }] }],
        systemInstruction: { parts: [{ text: 'S' }] },
        tools: [{ functionDeclarations: [{ name: 'f' }] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY' } },
        ttl: '600s',
      },
    },
    {
      name: 'only a system instruction (text parts too); models/ prefix kept once',
      input: {
        model: 'models/gemini-3-flash-preview',
        messages: [
          { role: 'system', content: 'A' },
          { role: 'developer', content: [{ type: 'text', text: 'B' }] },
        ],
      },
      want: { model: 'models/gemini-3-flash-preview', systemInstruction: { parts: [{ text: 'A' }, { text: 'B' }] } },
    },
  ])('$name', ({ input, want }) => {
    expect(convertCacheRequest(input, base)).toStrictEqual(want);
  });
});
