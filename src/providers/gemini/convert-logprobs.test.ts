import { describe, expect, it } from 'vitest';
import { convertLogprobs } from './convert-logprobs.js';

const bytes = (s: string) => [...Buffer.from(s, 'utf8')];

describe('convertLogprobs', () => {
  it.each<{ name: string; input: unknown; want: unknown }>([
    {
      name: 'chosen tokens with their top alternatives (gemini-more-fields §4 shape)',
      input: {
        logProbabilitySum: -0.5,
        topCandidates: [
          {
            candidates: [
              { token: 'Paris', tokenId: 7043, logProbability: -0.01 },
              { token: 'The', tokenId: 651, logProbability: -4.9 },
            ],
          },
          { candidates: [{ token: 'é', logProbability: -0.2 }] },
        ],
        chosenCandidates: [
          { token: 'Paris', tokenId: 7043, logProbability: -0.01 },
          { token: 'é', logProbability: -0.2 },
        ],
      },
      want: {
        content: [
          {
            token: 'Paris',
            logprob: -0.01,
            bytes: bytes('Paris'),
            top_logprobs: [
              { token: 'Paris', logprob: -0.01, bytes: bytes('Paris') },
              { token: 'The', logprob: -4.9, bytes: bytes('The') },
            ],
          },
          { token: 'é', logprob: -0.2, bytes: [0xc3, 0xa9], top_logprobs: [{ token: 'é', logprob: -0.2, bytes: [0xc3, 0xa9] }] },
        ],
        refusal: null,
      },
    },
    {
      name: 'without topCandidates (logprobs unset) each token has no alternatives',
      input: { chosenCandidates: [{ token: 'Hi', logProbability: -0.1 }] },
      want: { content: [{ token: 'Hi', logprob: -0.1, bytes: bytes('Hi'), top_logprobs: [] }], refusal: null },
    },
    { name: 'no steps', input: { chosenCandidates: [] }, want: undefined },
    { name: 'absent', input: undefined, want: undefined },
  ])('$name', ({ input, want }) => {
    expect(convertLogprobs(input)).toStrictEqual(want);
  });
});
