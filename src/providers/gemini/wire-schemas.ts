/**
 * Lenient zod schemas of the Gemini responses we read (gemini-wire §3, §4, §11).
 *
 * Strict at our door, lenient at Gemini's (STYLE §6): only the fields we read are listed, all
 * `nullish`, enums as plain strings, unknown keys pass. A response that changes shape in a field
 * we do not read can never break a call. Built once at import.
 */
import { z } from 'zod';

export const WirePart = z.looseObject({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  thoughtSignature: z.string().nullish(),
  inlineData: z.looseObject({ mimeType: z.string().nullish(), data: z.string().nullish() }).nullish(),
  fileData: z.looseObject({ mimeType: z.string().nullish(), fileUri: z.string().nullish() }).nullish(),
  functionCall: z
    .looseObject({ name: z.string().nullish(), args: z.record(z.string(), z.unknown()).nullish(), id: z.string().nullish() })
    .nullish(),
  executableCode: z.looseObject({ language: z.string().nullish(), code: z.string().nullish() }).nullish(),
  codeExecutionResult: z.looseObject({ outcome: z.string().nullish(), output: z.string().nullish() }).nullish(),
});
export type WirePart = z.infer<typeof WirePart>;

export const WireCandidate = z.looseObject({
  content: z.looseObject({ role: z.string().nullish(), parts: z.array(WirePart).nullish() }).nullish(),
  finishReason: z.string().nullish(),
  finishMessage: z.string().nullish(),
  index: z.number().int().nullish(),
  groundingMetadata: z.unknown().optional(),
  urlContextMetadata: z.unknown().optional(),
  /** Read leniently by convert-logprobs.ts. */
  logprobsResult: z.unknown().optional(),
  safetyRatings: z.unknown().optional(),
});
export type WireCandidate = z.infer<typeof WireCandidate>;

const ModalityCount = z.looseObject({ modality: z.string().nullish(), tokenCount: z.number().nullish() });

export const WireUsage = z.looseObject({
  promptTokenCount: z.number().nullish(),
  cachedContentTokenCount: z.number().nullish(),
  candidatesTokenCount: z.number().nullish(),
  toolUsePromptTokenCount: z.number().nullish(),
  thoughtsTokenCount: z.number().nullish(),
  totalTokenCount: z.number().nullish(),
  candidatesTokensDetails: z.array(ModalityCount).nullish(),
  promptTokensDetails: z.array(ModalityCount).nullish(),
  cacheTokensDetails: z.array(ModalityCount).nullish(),
  /** The tier that served the call (gemini-more-fields §9; AI SDK reads it here). */
  serviceTier: z.string().nullish(),
});
export type WireUsage = z.infer<typeof WireUsage>;

export const WireErrorObject = z.looseObject({
  code: z.number().nullish(),
  message: z.string().nullish(),
  status: z.string().nullish(),
  details: z.array(z.looseObject({ '@type': z.string().nullish(), retryDelay: z.string().nullish() })).nullish(),
});
export type WireErrorObject = z.infer<typeof WireErrorObject>;

export const WireResponse = z.looseObject({
  candidates: z.array(WireCandidate).nullish(),
  promptFeedback: z.looseObject({ blockReason: z.string().nullish() }).nullish(),
  usageMetadata: WireUsage.nullish(),
  modelVersion: z.string().nullish(),
  responseId: z.string().nullish(),
  error: WireErrorObject.nullish(),
});
export type WireResponse = z.infer<typeof WireResponse>;

