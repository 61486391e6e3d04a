// The emulator's model catalogue (gemini-wire.md §14.2 shape, ids of §15 and §9.2/§10) and the
// capability questions the emulator asks about an id. Built once; lookups only on the hot path.

/** A `Model` resource as `GET /v1beta/models/{model}` returns it (§14.2). */
export interface EmulatedModel {
  name: string;
  baseModelId: string;
  version: string;
  displayName: string;
  description: string;
  inputTokenLimit: number;
  outputTokenLimit: number;
  supportedGenerationMethods: string[];
  temperature?: number;
  maxTemperature?: number;
  topP?: number;
  topK?: number;
  thinking?: boolean;
}

const TEXT_METHODS = ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'];
// Embedding models list `embedContent` (§14.2); `batchEmbedContents` is served wherever it is.
const EMBEDDING_METHODS = ['embedContent', 'countTextTokens', 'countTokens', 'asyncBatchEmbedContent'];

/** Ids the emulator serves by default; an unknown id answers the §11.2 404. */
export const DEFAULT_MODEL_IDS: readonly string[] = [
  'gemini-2.0-flash',
  'gemini-2.0-flash-lite',
  'gemini-2.5-pro',
  'gemini-2.5-flash',
  'gemini-2.5-flash-lite',
  'gemini-2.5-flash-image',
  'gemini-2.5-computer-use-preview-10-2025',
  'gemini-3-pro-preview',
  'gemini-3-flash-preview',
  'gemini-3-pro-image-preview',
  'gemini-3.1-pro-preview',
  'gemini-3.1-flash-lite-preview',
  'gemini-3.1-flash-image-preview',
  'gemini-3.5-flash',
  'gemini-2.5-flash-preview-tts',
  'gemini-2.5-pro-preview-tts',
  'gemini-3.1-flash-tts-preview',
  'gemini-flash-latest',
  'gemini-pro-latest',
  'gemini-embedding-001',
  'gemini-embedding-2',
];

/** Embedding models: 3072-dimension vectors, `outputDimensionality` 128…3072 (Google's embeddings guide). */
export function isEmbeddingModel(model: string): boolean {
  return model.includes('embedding');
}

/** Native vector size of an embedding model. */
export const EMBEDDING_DIMENSIONS = 3072;

/** The `supportedGenerationMethods` entry an RPC needs (streaming is not listed separately, §14.2). */
export function methodFor(rpc: string): string {
  if (rpc === 'streamGenerateContent') return 'generateContent';
  if (rpc === 'batchEmbedContents') return 'embedContent';
  return rpc;
}

/** Gemini 3 family (incl. the `-latest` aliases, which point at Gemini 3 since 2026-01, §15). */
export function isGemini3(model: string): boolean {
  return model.startsWith('gemini-3') || model === 'gemini-flash-latest' || model === 'gemini-pro-latest';
}

/** Models that answer with images when asked for the IMAGE modality (§10). */
export function isImageModel(model: string): boolean {
  return model.includes('-image');
}

/** Models that think (2.5 and 3 families), so thinking settings apply (§2.6). */
export function isThinkingModel(model: string): boolean {
  return model.startsWith('gemini-2.5') || isGemini3(model);
}

function describe(id: string): EmulatedModel {
  if (isEmbeddingModel(id)) {
    const display = id === 'gemini-embedding-001' ? 'Gemini Embedding 001' : 'Gemini Embedding 2';
    return {
      name: `models/${id}`,
      baseModelId: id,
      version: id.endsWith('001') ? '001' : '2',
      displayName: display,
      description: `${display} (served by the sidegate Gemini emulator)`,
      inputTokenLimit: id.endsWith('001') ? 2048 : 8192,
      outputTokenLimit: 1,
      supportedGenerationMethods: EMBEDDING_METHODS,
    };
  }
  const words = id.replace(/^gemini-/, '').split('-');
  const display = `Gemini ${words.map((w) => (/^\d/.test(w) ? w : w[0]!.toUpperCase() + w.slice(1))).join(' ')}`;
  const model: EmulatedModel = {
    name: `models/${id}`,
    baseModelId: id,
    version: '001',
    displayName: display,
    description: `${display} (served by the sidegate Gemini emulator)`,
    inputTokenLimit: isImageModel(id) ? 65_536 : 1_048_576,
    outputTokenLimit: isImageModel(id) ? 32_768 : 65_536,
    supportedGenerationMethods: TEXT_METHODS,
    temperature: 1,
    maxTemperature: 2,
    topP: 0.95,
    topK: 64,
  };
  if (isThinkingModel(id)) model.thinking = true;
  return model;
}

/** The catalogue: ordered list plus lookup by bare id. */
export interface ModelCatalog {
  list: EmulatedModel[];
  get(id: string): EmulatedModel | undefined;
}

export function buildModelCatalog(ids: readonly string[]): ModelCatalog {
  const byId = new Map<string, EmulatedModel>();
  for (const id of ids) byId.set(id, describe(id));
  return { list: [...byId.values()], get: (id) => byId.get(id) };
}
