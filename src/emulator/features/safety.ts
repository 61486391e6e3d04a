// Safety settings and ratings (gemini-more-fields §7; gemini-wire §2.8, §3.2). Deterministic rule:
// a prompt whose last user text contains "insult" is rated HARM_CATEGORY_HARASSMENT at MEDIUM
// probability, everything else NEGLIGIBLE. Gemini 2.5 and 3 default to OFF when no setting is
// given, so only a caller's threshold can block: BLOCK_LOW_AND_ABOVE and BLOCK_MEDIUM_AND_ABOVE
// block a MEDIUM rating (promptFeedback.blockReason SAFETY, no candidates); BLOCK_ONLY_HIGH,
// BLOCK_NONE and OFF do not. Candidates carry `safetyRatings` when the request set any. Pure.

import { googleError, type GoogleErrorBody } from '../errors.js';

const CATEGORIES = ['HARM_CATEGORY_HARASSMENT', 'HARM_CATEGORY_HATE_SPEECH', 'HARM_CATEGORY_SEXUALLY_EXPLICIT', 'HARM_CATEGORY_DANGEROUS_CONTENT'];
const BLOCKS_MEDIUM = new Set(['BLOCK_LOW_AND_ABOVE', 'BLOCK_MEDIUM_AND_ABOVE']);

export interface SafetyRating {
  category: string;
  probability: string;
  blocked?: boolean;
}

export interface SafetyOutcome {
  /** Set when the prompt is blocked: the whole `promptFeedback`. */
  promptFeedback?: { blockReason: string; safetyRatings: SafetyRating[] };
  /** Ratings for each candidate, when the request set safety settings. */
  ratings?: SafetyRating[];
}

/** At most one setting per category (gemini-wire §2.8); null when fine. */
export function checkSafetySettings(settings: Array<{ category?: string }> | undefined): GoogleErrorBody | null {
  const seen = new Set<string>();
  for (const s of settings ?? []) {
    const c = s.category ?? '';
    if (seen.has(c)) return googleError(400, `Duplicate safety settings for category ${c}.`); // emulator wording
    seen.add(c);
  }
  return null;
}

export function safetyFor(settings: Array<{ category?: string; threshold?: string }> | undefined, promptText: string): SafetyOutcome {
  if (settings === undefined || settings.length === 0) return {};
  const harassing = /\binsult/i.test(promptText);
  const ratings: SafetyRating[] = CATEGORIES.map((category) => ({
    category,
    probability: harassing && category === 'HARM_CATEGORY_HARASSMENT' ? 'MEDIUM' : 'NEGLIGIBLE',
  }));
  const threshold = settings.find((s) => s.category === 'HARM_CATEGORY_HARASSMENT')?.threshold;
  if (harassing && threshold !== undefined && BLOCKS_MEDIUM.has(threshold)) {
    return {
      promptFeedback: {
        blockReason: 'SAFETY',
        safetyRatings: ratings.map((r) => (r.probability === 'MEDIUM' ? { ...r, blocked: true } : r)),
      },
    };
  }
  return { ratings };
}
