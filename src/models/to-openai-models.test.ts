import { describe, expect, it } from 'vitest';
import { toOpenAIModels } from './to-openai-models.js';

describe('toOpenAIModels', () => {
  it('maps models and adds aliases whose target is listed', () => {
    const models = [
      { id: 'gemini-2.5-flash', ownedBy: 'google', capabilities: ['chat' as const] },
      { id: 'gemini-3-flash-preview', ownedBy: 'google', capabilities: ['chat' as const] },
    ];
    expect(toOpenAIModels(models, { 'gemini-flash-latest': 'gemini-3-flash-preview', 'gemini-pro-latest': 'gemini-3-pro-preview' })).toStrictEqual({
      object: 'list',
      data: [
        { id: 'gemini-2.5-flash', object: 'model', created: 0, owned_by: 'google' },
        { id: 'gemini-3-flash-preview', object: 'model', created: 0, owned_by: 'google' },
        { id: 'gemini-flash-latest', object: 'model', created: 0, owned_by: 'google' },
      ],
    });
  });

  it('does not list an alias twice when upstream already lists it', () => {
    const models = [
      { id: 'gemini-3-flash-preview', ownedBy: 'google', capabilities: ['chat' as const] },
      { id: 'gemini-flash-latest', ownedBy: 'google', capabilities: ['chat' as const] },
    ];
    expect(toOpenAIModels(models).data.map((m) => m.id)).toStrictEqual(['gemini-3-flash-preview', 'gemini-flash-latest']);
  });
});
