// `logprobsResult` for an answer text (gemini-more-fields §4; PROTO LogprobsResult). Pure and
// deterministic: the text is cut into tokens (a run of spaces joins the word after it, so the
// tokens concatenate back to the text); token k has logProbability -(k+1)/100 and, when `top`
// alternatives are asked for (`generationConfig.logprobs`), topCandidates lists the chosen token
// first, then made-up alternatives `<token>~1`, `<token>~2`… each one nat less likely. Streams
// carry one result per chunk covering that chunk's text (LiteLLM reads them per chunk).

export interface LogprobsPiece {
  logprobsResult: Record<string, unknown>;
  avgLogprobs: number;
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

export function tokenize(text: string): string[] {
  return text.match(/\s*\S+|\s+/g) ?? [];
}

export function logprobsFor(text: string, top: number | undefined, firstStep = 0): LogprobsPiece {
  const tokens = tokenize(text);
  const chosen = tokens.map((token, k) => ({ token, tokenId: 1000 + firstStep + k, logProbability: round(-(firstStep + k + 1) / 100) }));
  const sum = round(chosen.reduce((s, c) => s + c.logProbability, 0));
  const result: Record<string, unknown> = { logProbabilitySum: sum, chosenCandidates: chosen };
  if (top !== undefined && top > 0) {
    result.topCandidates = chosen.map((c) => ({
      candidates: [c, ...Array.from({ length: top - 1 }, (_, i) => ({ token: `${c.token}~${i + 1}`, tokenId: 9000 + i, logProbability: round(c.logProbability - (i + 1)) }))],
    }));
  }
  return { logprobsResult: result, avgLogprobs: chosen.length > 0 ? round(sum / chosen.length) : 0 };
}
