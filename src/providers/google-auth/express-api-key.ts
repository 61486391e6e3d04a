/**
 * Credential source 2: a Vertex AI express-mode API key, sent as `x-goog-api-key` (the header
 * `@google/genai` sends, vertex-ai.md §1.5). Express mode has its own URL form without project
 * and location (`providers/vertex/vertex-endpoint.ts`).
 */
export function expressApiKeyHeaders(apiKey: string): Record<string, string> {
  return { 'x-goog-api-key': apiKey };
}
