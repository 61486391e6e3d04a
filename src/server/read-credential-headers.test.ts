import { describe, expect, it } from 'vitest';
import { readCredentialHeaders } from './read-credential-headers.js';

describe('readCredentialHeaders: Vertex AI headers', () => {
  it.each([
    {
      name: 'x-gateway- names',
      headers: { 'x-gateway-provider': 'vertex-ai', 'x-gateway-vertex-project-id': 'my-proj', 'x-gateway-vertex-region': 'us-central1' },
      want: { provider: 'vertex-ai', vertexProjectId: 'my-proj', vertexRegion: 'us-central1' },
    },
    {
      name: 'the x-portkey- aliases the portkey-ai SDK sends',
      headers: { 'x-portkey-provider': 'vertex-ai', 'x-portkey-vertex-project-id': 'my-proj', 'x-portkey-vertex-region': 'global' },
      want: { provider: 'vertex-ai', vertexProjectId: 'my-proj', vertexRegion: 'global' },
    },
  ])('$name', ({ headers, want }) => {
    expect(readCredentialHeaders(headers, 1000)).toMatchObject(want);
  });

  it.each([
    { headers: { 'x-gateway-vertex-region': 'us-central1/../x' }, param: 'x-gateway-vertex-region' },
    { headers: { 'x-gateway-vertex-project-id': 'Proj?x=1' }, param: 'x-gateway-vertex-project-id' },
  ])('400 naming $param for a value that is not a Google name', ({ headers, param }) => {
    expect(() => readCredentialHeaders(headers, 1000)).toThrow(expect.objectContaining({ status: 400, param, code: 'invalid_vertex_target' }));
  });
});
