import { describe, expect, it } from 'vitest';
import { convertModelList } from './convert-model-list.js';

describe('convertModelList', () => {
  it('keeps chat and embedding models, strips models/, dedupes across pages', () => {
    const pages = [
      {
        models: [
          { name: 'models/gemini-2.5-flash', supportedGenerationMethods: ['generateContent', 'countTokens'] },
          { name: 'models/gemini-embedding-001', supportedGenerationMethods: ['embedContent', 'countTokens'] },
          { name: 'models/imagen-4.0-generate-001', supportedGenerationMethods: ['predict'] },
        ],
        nextPageToken: 'x',
      },
      { models: [{ name: 'models/gemini-2.5-flash', supportedGenerationMethods: ['generateContent'] }, { displayName: 'no name' }] },
    ];
    expect(convertModelList(pages)).toStrictEqual([
      { id: 'gemini-2.5-flash', ownedBy: 'google', capabilities: ['chat'] },
      { id: 'gemini-embedding-001', ownedBy: 'google', capabilities: ['embeddings'] },
    ]);
  });

  it.each([[[]], [[{}]], [['not a page']], [[{ models: null }]]])('is empty for %j', (pages) => {
    expect(convertModelList(pages)).toStrictEqual([]);
  });
});
