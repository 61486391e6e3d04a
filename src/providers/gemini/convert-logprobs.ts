/**
 * Gemini `logprobsResult` → OpenAI `choices[i].logprobs` (issue 23 row 4; gemini-more-fields §4).
 * Pure.
 *
 * `chosenCandidates[k]` is the token picked at decoding step k → `content[k]`;
 * `topCandidates[k].candidates` (sorted, most likely first) → `content[k].top_logprobs`.
 * `bytes` is the token's UTF-8 encoding, as OpenAI defines it. Undefined when the result holds no
 * steps (the candidate carried none, or a stream chunk carried no new tokens).
 */
import type { ChoiceLogprobs, TokenLogprob } from '../../openai/chat-response.js';

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function tokenOf(value: unknown): { token: string; logprob: number; bytes: number[] } | undefined {
  const c = record(value);
  if (!c) return undefined;
  const token = typeof c.token === 'string' ? c.token : '';
  const logprob = typeof c.logProbability === 'number' ? c.logProbability : 0;
  return { token, logprob, bytes: [...Buffer.from(token, 'utf8')] };
}

export function convertLogprobs(result: unknown): ChoiceLogprobs | undefined {
  const r = record(result);
  const chosen = Array.isArray(r?.chosenCandidates) ? r.chosenCandidates : [];
  if (chosen.length === 0) return undefined;
  const top = Array.isArray(r?.topCandidates) ? r.topCandidates : [];
  const content: TokenLogprob[] = [];
  chosen.forEach((value, step) => {
    const picked = tokenOf(value);
    if (!picked) return;
    const alternatives = record(top[step])?.candidates;
    const topLogprobs = (Array.isArray(alternatives) ? alternatives : []).map(tokenOf).filter((t) => t !== undefined);
    content.push({ token: picked.token, logprob: picked.logprob, bytes: picked.bytes, top_logprobs: topLogprobs });
  });
  return { content, refusal: null };
}
