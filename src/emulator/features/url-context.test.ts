import { describe, expect, it } from 'vitest';
import { URL_CONTEXT_TOKENS, urlContextFor } from './url-context.js';

describe('urlContextFor', () => {
  it.each([
    {
      name: 'public URLs retrieved in order of first mention, trailing punctuation dropped, duplicates once',
      text: 'Compare https://a.example/x, http://b.example/y. And https://a.example/x again',
      want: [
        ['https://a.example/x', 'URL_RETRIEVAL_STATUS_SUCCESS'],
        ['http://b.example/y', 'URL_RETRIEVAL_STATUS_SUCCESS'],
      ],
      tokens: 2 * URL_CONTEXT_TOKENS,
    },
    {
      name: 'loopback and private hosts are refused (gemini-more-fields §1)',
      text: 'http://localhost:8080/a http://127.0.0.1/b http://10.1.2.3/c http://192.168.0.1 https://ok.example',
      want: [
        ['http://localhost:8080/a', 'URL_RETRIEVAL_STATUS_ERROR'],
        ['http://127.0.0.1/b', 'URL_RETRIEVAL_STATUS_ERROR'],
        ['http://10.1.2.3/c', 'URL_RETRIEVAL_STATUS_ERROR'],
        ['http://192.168.0.1', 'URL_RETRIEVAL_STATUS_ERROR'],
        ['https://ok.example', 'URL_RETRIEVAL_STATUS_SUCCESS'],
      ],
      tokens: URL_CONTEXT_TOKENS,
    },
    { name: 'no URL', text: 'nothing here', want: [], tokens: 0 },
  ])('$name', ({ text, want, tokens }) => {
    const out = urlContextFor(text);
    expect(out.urlContextMetadata.urlMetadata.map((m) => [m.retrievedUrl, m.urlRetrievalStatus])).toStrictEqual(want);
    expect(out.toolUsePromptTokens).toBe(tokens);
  });

  it('takes at most 20 URLs', () => {
    const text = Array.from({ length: 25 }, (_, i) => `https://e.example/${i}`).join(' ');
    expect(urlContextFor(text).urlContextMetadata.urlMetadata).toHaveLength(20);
  });
});
