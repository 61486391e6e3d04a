import { describe, expect, it } from 'vitest';
import { mapFinishReason } from './map-finish-reason.js';

describe('mapFinishReason', () => {
  it.each([
    { name: 'STOP', reason: 'STOP', tools: false, want: 'stop' },
    { name: 'STOP with calls', reason: 'STOP', tools: true, want: 'tool_calls' },
    { name: 'missing with calls', reason: undefined, tools: true, want: 'tool_calls' },
    { name: 'MAX_TOKENS', reason: 'MAX_TOKENS', tools: false, want: 'length' },
    { name: 'MAX_TOKENS with calls', reason: 'MAX_TOKENS', tools: true, want: 'length' },
    { name: 'SAFETY', reason: 'SAFETY', tools: false, want: 'content_filter' },
    { name: 'RECITATION', reason: 'RECITATION', tools: false, want: 'content_filter' },
    { name: 'BLOCKLIST', reason: 'BLOCKLIST', tools: false, want: 'content_filter' },
    { name: 'PROHIBITED_CONTENT', reason: 'PROHIBITED_CONTENT', tools: false, want: 'content_filter' },
    { name: 'SPII', reason: 'SPII', tools: false, want: 'content_filter' },
    { name: 'IMAGE_SAFETY', reason: 'IMAGE_SAFETY', tools: false, want: 'content_filter' },
    { name: 'OTHER', reason: 'OTHER', tools: false, want: 'stop' },
    { name: 'unknown', reason: 'SOMETHING_NEW', tools: false, want: 'stop' },
    { name: 'null', reason: null, tools: false, want: 'stop' },
  ])('$name', ({ reason, tools, want }) => {
    expect(mapFinishReason(reason, tools)).toStrictEqual(want);
  });
});
