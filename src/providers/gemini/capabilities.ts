/**
 * What a Gemini model id supports (STYLE §8). Pure; converters ask this instead of matching ids.
 *
 * Unknown ids (and ids of families newer than this table) get the newest behaviour, so a new model
 * works without a release. Facts: gemini-wire §2.6 (thinking levels are Gemini 3+), §6.2
 * (signatures enforced on Gemini 3+); the per-feature rows of issue 23 are in
 * docs/gemini-fields.md with their sources (URL context, logprobs, candidateCount, service tiers).
 */
export interface ModelCapabilities {
  /** Takes `thinkingConfig.thinkingLevel` (Gemini 3 family and later). */
  thinkingLevel: boolean;
  /** Validates thought signatures on function calls (Gemini 3 family and later). */
  enforcesThoughtSignatures: boolean;
  /** Takes the `urlContext` tool (2.5 and 3.x text models; not image, TTS or computer-use models). */
  urlContext: boolean;
  /**
   * Takes the `googleSearch` tool (2.0 and later; not 2.0 Flash-Lite, 2.5 Flash Image, TTS or
   * computer-use models: Google's grounding page and the AI SDK's gemini-tool-capabilities.ts).
   */
  googleSearch: boolean;
  /**
   * Not known to refuse `responseLogprobs`: Google answers "Logprobs is not enabled for
   * models/…" for the 2.5 family and 3.5 Flash, and "not supported" for 1.x; other ids are sent
   * and any upstream 400 is relayed.
   */
  logprobs: boolean;
  /** Largest `candidateCount`: Gemini 3 answers "Multiple candidates is not enabled for this model". */
  maxCandidates: number;
  /** Service tiers (`flex`, `priority`) beyond `standard` (2.5 and later text models). */
  serviceTiers: boolean;
  /** Takes `mediaResolution` per part (Gemini 3); older models only in `generationConfig`. */
  perPartMediaResolution: boolean;
  /** Answers audio (`responseModalities: ["AUDIO"]`): the TTS models, which answer nothing else. */
  audioOutput: boolean;
  /** Streams audio: the 2.5 preview TTS models answer unary only (gemini-more-fields §3). */
  streamsAudio: boolean;
}

/** The major.minor of a `gemini-X[.Y]-…` id, or undefined for other ids. */
function geminiVersion(model: string): number | undefined {
  const m = /(?:^|\/)gemini-(\d+(?:\.\d+)?)/.exec(model.toLowerCase());
  return m ? Number(m[1]) : undefined;
}

/**
 * Answers by model id, frozen. Every Gemini call asks (translation asks up to four times), and the
 * answer is a lower-casing, a regex and ten fields each time. Ids are the client's, so the table
 * is bounded: when full it starts over.
 */
const answered = new Map<string, Readonly<ModelCapabilities>>();
const ANSWERED_MAX = 256;

export function getModelCapabilities(model: string): Readonly<ModelCapabilities> {
  let caps = answered.get(model);
  if (caps === undefined) {
    if (answered.size >= ANSWERED_MAX) answered.clear();
    caps = Object.freeze(capabilitiesOf(model));
    answered.set(model, caps);
  }
  return caps;
}

function capabilitiesOf(model: string): ModelCapabilities {
  const id = model.toLowerCase();
  const version = geminiVersion(id);
  const modern = version === undefined || version >= 3;
  const tts = id.includes('-tts');
  const computerUse = id.includes('computer-use');
  const image = id.includes('-image');
  const special = tts || computerUse;
  const searchless = (version === 2 && id.includes('lite')) || (version === 2.5 && image);
  return {
    thinkingLevel: modern,
    enforcesThoughtSignatures: modern,
    urlContext: (version === undefined || version >= 2.5) && !special && !image,
    googleSearch: (version === undefined || version >= 2) && !special && !searchless,
    logprobs: version === undefined || (version >= 2 && version < 2.5) || (version >= 3 && version !== 3.5),
    maxCandidates: modern || image || special ? 1 : 8,
    serviceTiers: (version === undefined || version >= 2.5) && !special,
    perPartMediaResolution: modern,
    audioOutput: tts,
    streamsAudio: tts && version !== 2.5,
  };
}
