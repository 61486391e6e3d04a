// The URL context tool's answer (gemini-more-fields §1; gemini-wire §8.3): one `urlMetadata`
// entry per http(s) URL named in the prompt (at most 20), in order of first mention. Public URLs
// are "retrieved"; loopback and private-network hosts, which Google refuses to fetch, get
// URL_RETRIEVAL_STATUS_ERROR. Retrieved pages are billed as tool-use prompt tokens: the emulator
// counts a fixed URL_CONTEXT_TOKENS per retrieved URL. Pure.

export const URL_CONTEXT_TOKENS = 100;
const MAX_URLS = 20;
const URL = /https?:\/\/[^\s"'<>()]+/g;
const PRIVATE_HOST = /^(localhost|127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|\[::1\]|0\.0\.0\.0)/;

export interface UrlContextResult {
  urlContextMetadata: { urlMetadata: Array<{ retrievedUrl: string; urlRetrievalStatus: string }> };
  toolUsePromptTokens: number;
}

export function urlContextFor(promptText: string): UrlContextResult {
  const urls = [...new Set((promptText.match(URL) ?? []).map((u) => u.replace(/[.,;:!?]+$/, '')))].slice(0, MAX_URLS);
  let retrieved = 0;
  const urlMetadata = urls.map((retrievedUrl) => {
    const host = retrievedUrl.replace(/^https?:\/\//, '');
    const ok = !PRIVATE_HOST.test(host);
    if (ok) retrieved++;
    return { retrievedUrl, urlRetrievalStatus: ok ? 'URL_RETRIEVAL_STATUS_SUCCESS' : 'URL_RETRIEVAL_STATUS_ERROR' };
  });
  return { urlContextMetadata: { urlMetadata }, toolUsePromptTokens: retrieved * URL_CONTEXT_TOKENS };
}
