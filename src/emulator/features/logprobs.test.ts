import { describe, expect, it } from 'vitest';
import { logprobsFor, tokenize } from './logprobs.js';

describe('logprobsFor', () => {
  it('tokens concatenate back to the text', () => {
    for (const text of ['Echo: hi there', '  lead', 'tail  ', 'a\nb']) expect(tokenize(text).join('')).toBe(text);
  });

  it('chosen tokens, and top alternatives with the chosen first when asked', () => {
    expect(logprobsFor('Hi there', 2)).toStrictEqual({
      logprobsResult: {
        logProbabilitySum: -0.03,
        chosenCandidates: [
          { token: 'Hi', tokenId: 1000, logProbability: -0.01 },
          { token: ' there', tokenId: 1001, logProbability: -0.02 },
        ],
        topCandidates: [
          { candidates: [{ token: 'Hi', tokenId: 1000, logProbability: -0.01 }, { token: 'Hi~1', tokenId: 9000, logProbability: -1.01 }] },
          { candidates: [{ token: ' there', tokenId: 1001, logProbability: -0.02 }, { token: ' there~1', tokenId: 9000, logProbability: -1.02 }] },
        ],
      },
      avgLogprobs: -0.015,
    });
  });

  it('no topCandidates without a count; steps continue from firstStep (stream chunks)', () => {
    const out = logprobsFor('x', undefined, 4);
    expect(out.logprobsResult).toStrictEqual({ logProbabilitySum: -0.05, chosenCandidates: [{ token: 'x', tokenId: 1004, logProbability: -0.05 }] });
  });
});
