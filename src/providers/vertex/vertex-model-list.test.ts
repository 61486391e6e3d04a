import { describe, expect, it } from 'vitest';
import { convertVertexModelList } from './vertex-model-list.js';

describe('convertVertexModelList', () => {
  it('keeps chat and embedding models, bare ids, once each, across pages', () => {
    const pages = [
      {
        publisherModels: [
          { name: 'publishers/google/models/gemini-2.5-flash', versionId: '001', launchStage: 'GA' },
          { name: 'publishers/google/models/text-embedding-005' },
          { name: 'publishers/google/models/imagen-4.0-generate-001' },
        ],
        nextPageToken: 'x',
      },
      { publisherModels: [{ name: 'publishers/google/models/gemini-2.5-flash' }, { name: 'publishers/google/models/gemini-embedding-001' }, {}] },
      { unexpected: true },
    ];
    expect(convertVertexModelList(pages)).toStrictEqual([
      { id: 'gemini-2.5-flash', ownedBy: 'google', capabilities: ['chat'] },
      { id: 'text-embedding-005', ownedBy: 'google', capabilities: ['embeddings'] },
      { id: 'gemini-embedding-001', ownedBy: 'google', capabilities: ['embeddings'] },
    ]);
  });
});
