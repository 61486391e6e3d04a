/**
 * What a Gemini model id supports (STYLE §8). Pure; converters ask this instead of matching ids.
 *
 * Unknown ids (and ids of families newer than this table) get the newest behaviour, so a new model
 * works without a release. Facts: gemini-wire §2.6 (thinking levels are Gemini 3+), §6.2
 * (signatures enforced on Gemini 3+).
 */
export interface ModelCapabilities {
  /** Takes `thinkingConfig.thinkingLevel` (Gemini 3 family and later). */
  thinkingLevel: boolean;
  /** Validates thought signatures on function calls (Gemini 3 family and later). */
  enforcesThoughtSignatures: boolean;
}

/** The major.minor of a `gemini-X[.Y]-…` id, or undefined for other ids. */
function geminiVersion(model: string): number | undefined {
  const m = /(?:^|\/)gemini-(\d+(?:\.\d+)?)/.exec(model.toLowerCase());
  return m ? Number(m[1]) : undefined;
}

export function getModelCapabilities(model: string): ModelCapabilities {
  const version = geminiVersion(model);
  const modern = version === undefined || version >= 3;
  return { thinkingLevel: modern, enforcesThoughtSignatures: modern };
}
