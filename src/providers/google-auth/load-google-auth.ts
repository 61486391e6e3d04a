/**
 * Google's auth library, imported on first use only (issue 22 item 2): a sidecar that never calls
 * Vertex AI with a service account or ADC never loads it (about 2 MB of modules with gaxios;
 * test/integration/start-imports.test.ts checks it is not loaded at start).
 */
export type GoogleAuthLibrary = typeof import('google-auth-library');

let loading: Promise<GoogleAuthLibrary> | undefined;

export function loadGoogleAuth(): Promise<GoogleAuthLibrary> {
  loading ??= import('google-auth-library').catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

/** The OAuth scope Vertex AI needs; `@google/genai` forces it too (vertex-ai.md §3.1). */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** A token's expiry from a client's credentials; a token without one is treated as short-lived. */
export function expiryOf(expiryDate: number | null | undefined, now: number): number {
  return typeof expiryDate === 'number' && expiryDate > 0 ? expiryDate : now + 5 * 60_000;
}
