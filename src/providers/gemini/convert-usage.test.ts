import { describe, expect, it } from 'vitest';
import { convertUsage } from './convert-usage.js';

describe('convertUsage', () => {
  it.each([
    {
      name: 'thinking and cache (recorded shape)',
      input: {
        promptTokenCount: 1844,
        cachedContentTokenCount: 901,
        candidatesTokenCount: 51,
        thoughtsTokenCount: 91,
        toolUsePromptTokenCount: 1934,
        totalTokenCount: 3920,
      },
      want: {
        usage: {
          prompt_tokens: 3778,
          completion_tokens: 142,
          total_tokens: 3920,
          prompt_tokens_details: { cached_tokens: 901 },
          completion_tokens_details: { reasoning_tokens: 91 },
        },
        normalized: {
          inputTokens: 3778,
          outputTokens: 142,
          reasoningTokens: 91,
          cachedInputTokens: 901,
          toolUsePromptTokens: 1934,
        },
      },
    },
    {
      name: 'zero fields omitted',
      input: { promptTokenCount: 7, totalTokenCount: 7 },
      want: {
        usage: {
          prompt_tokens: 7,
          completion_tokens: 0,
          total_tokens: 7,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
        normalized: { inputTokens: 7, outputTokens: 0, reasoningTokens: 0, cachedInputTokens: 0 },
      },
    },
    {
      name: 'image output',
      input: {
        promptTokenCount: 10,
        candidatesTokenCount: 1300,
        candidatesTokensDetails: [
          { modality: 'TEXT', tokenCount: 10 },
          { modality: 'IMAGE', tokenCount: 1290 },
        ],
      },
      want: {
        usage: {
          prompt_tokens: 10,
          completion_tokens: 1300,
          total_tokens: 1310,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
        normalized: { inputTokens: 10, outputTokens: 1300, reasoningTokens: 0, cachedInputTokens: 0, imageOutputTokens: 1290 },
      },
    },
  ])('$name', ({ input, want }) => {
    expect(convertUsage(input)).toStrictEqual(want);
  });
});
