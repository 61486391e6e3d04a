import { describe, expect, it } from 'vitest';
import { isVertexProjectId, isVertexRegion, vertexModelSegment, vertexModelsUrl, vertexOrigin } from './vertex-endpoint.js';

describe('vertexOrigin', () => {
  it.each([
    { region: 'us-central1', want: 'https://us-central1-aiplatform.googleapis.com' },
    { region: 'europe-west4', want: 'https://europe-west4-aiplatform.googleapis.com' },
    { region: 'global', want: 'https://aiplatform.googleapis.com' },
    { region: 'us', want: 'https://aiplatform.us.rep.googleapis.com' },
    { region: 'eu', want: 'https://aiplatform.eu.rep.googleapis.com' },
  ])('$region → $want', ({ region, want }) => {
    expect(vertexOrigin(region)).toBe(want);
  });
});

describe('vertexModelsUrl', () => {
  it.each([
    {
      name: 'project and region',
      origin: 'https://us-central1-aiplatform.googleapis.com',
      scope: { projectId: 'my-proj', region: 'us-central1' },
      want: 'https://us-central1-aiplatform.googleapis.com/v1/projects/my-proj/locations/us-central1/publishers/google/models',
    },
    {
      name: 'global, base URL with a trailing slash',
      origin: 'http://127.0.0.1:9000/',
      scope: { projectId: 'my-proj', region: 'global' },
      want: 'http://127.0.0.1:9000/v1/projects/my-proj/locations/global/publishers/google/models',
    },
    { name: 'express mode', origin: 'https://aiplatform.googleapis.com', scope: undefined, want: 'https://aiplatform.googleapis.com/v1/publishers/google/models' },
  ])('$name', ({ origin, scope, want }) => {
    expect(vertexModelsUrl(origin, scope)).toBe(want);
  });
});

describe('vertexModelSegment', () => {
  it.each([
    ['gemini-2.5-flash', 'gemini-2.5-flash'],
    ['models/gemini-2.5-flash', 'gemini-2.5-flash'],
    ['publishers/google/models/gemini-2.5-flash', 'gemini-2.5-flash'],
    ['gemini-2.0-flash-001', 'gemini-2.0-flash-001'],
  ])('%s → %s', (model, want) => {
    expect(vertexModelSegment(model)).toBe(want);
  });
  it.each(['', 'a/b', '../x', 'm?x=1', 'm:predict', 'publishers/google/models/'])('refuses %j with param model', (model) => {
    expect(() => vertexModelSegment(model)).toThrow(expect.objectContaining({ status: 400, param: 'model' }));
  });
});

describe('names', () => {
  it.each([
    ['us-central1', true],
    ['global', true],
    ['US-CENTRAL1', false],
    ['us/central', false],
    ['', false],
  ])('region %j valid: %s', (value, want) => {
    expect(isVertexRegion(value)).toBe(want);
  });
  it.each([
    ['my-project-123', true],
    ['example.com:my-proj', true],
    ['ab', false],
    ['My-Project', false],
    ['proj/../x', false],
  ])('project %j valid: %s', (value, want) => {
    expect(isVertexProjectId(value)).toBe(want);
  });
});
