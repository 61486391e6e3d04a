/** Vertex AI targets: where project, region and credential come from (issue 22 item 1–2). */
import { describe, expect, it } from 'vitest';
import { parseRoutingConfig, type ConfigTarget } from '../config/routing-config.js';
import type { VirtualKey } from '../keys/virtual-key-store.js';
import { resolveTarget, type RequestCredentials, type TargetEnvironment } from './resolve-target.js';

const SA = JSON.stringify({
  type: 'service_account',
  project_id: 'sa-project',
  client_email: 'gw@sa-project.iam.gserviceaccount.com',
  private_key: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n',
});
const EXPRESS = `AIza${'e'.repeat(35)}`;
const keys: Record<string, VirtualKey> = {
  vsa: { slug: 'vsa', provider: 'vertex-ai', apiKey: '', vertex: { projectId: 'sa-project', region: 'europe-west4', serviceAccountJson: SA } },
  vadc: { slug: 'vadc', provider: 'vertex-ai', apiKey: '', vertex: { projectId: 'adc-project' } },
};
const env = (vertexBase?: string): TargetEnvironment => ({
  virtualKeys: { get: (slug) => keys[slug] },
  baseUrls: { google: 'https://generativelanguage.googleapis.com', openai: 'https://api.openai.com', 'vertex-ai': vertexBase },
  customHosts: ['127.0.0.1'],
});
const headers = (extra: Partial<RequestCredentials>): RequestCredentials => ({ strictCompliance: true, timeoutMs: 1000, ...extra });
const common = { provider: 'vertex-ai', strictCompliance: true, timeoutMs: 1000 };

describe('resolveTarget for vertex-ai', () => {
  it.each<{ name: string; node?: unknown; creds: Partial<RequestCredentials>; base?: string; want: unknown }>([
    {
      name: 'headers with a raw token',
      creds: { provider: 'vertex-ai', apiKey: 'ya29.tok', vertexProjectId: 'p-1', vertexRegion: 'us-central1' },
      want: { ...common, apiKey: 'ya29.tok', baseUrl: 'https://us-central1-aiplatform.googleapis.com', vertex: { projectId: 'p-1', region: 'us-central1' } },
    },
    {
      name: 'headers without a region: global endpoint',
      creds: { provider: 'vertex-ai', apiKey: 'ya29.tok', vertexProjectId: 'p-1' },
      want: { ...common, apiKey: 'ya29.tok', baseUrl: 'https://aiplatform.googleapis.com', vertex: { projectId: 'p-1', region: 'global' } },
    },
    {
      name: 'an OpenAI client\'s placeholder key is not a token: ADC',
      creds: { provider: 'vertex-ai', apiKey: 'unused', vertexProjectId: 'p-1', vertexRegion: 'us-central1' },
      want: { ...common, apiKey: '', baseUrl: 'https://us-central1-aiplatform.googleapis.com', vertex: { projectId: 'p-1', region: 'us-central1' } },
    },
    {
      name: 'an express key in Authorization: express origin',
      creds: { provider: 'vertex-ai', apiKey: EXPRESS },
      want: { ...common, apiKey: EXPRESS, baseUrl: 'https://aiplatform.googleapis.com', vertex: { region: 'global' } },
    },
    {
      name: 'SIDEGATE_VERTEX_BASE_URL replaces the origin of every region',
      creds: { provider: 'vertex-ai', vertexProjectId: 'p-1', vertexRegion: 'asia-northeast1' },
      base: 'http://127.0.0.1:9999',
      want: { ...common, apiKey: '', baseUrl: 'http://127.0.0.1:9999', vertex: { projectId: 'p-1', region: 'asia-northeast1' } },
    },
    {
      name: 'a virtual key with a service account wins over Authorization',
      creds: { virtualKey: 'vsa', apiKey: 'ya29.header' },
      want: { ...common, apiKey: '', baseUrl: 'https://europe-west4-aiplatform.googleapis.com', vertex: { projectId: 'sa-project', region: 'europe-west4', serviceAccountJson: SA } },
    },
    {
      name: 'a config target\'s service-account key wins over Authorization; its project_id fills the project',
      node: { provider: 'vertex-ai', vertex_region: 'us-east5', vertex_service_account_json: JSON.parse(SA) },
      creds: { apiKey: 'ya29.header' },
      want: { ...common, apiKey: '', baseUrl: 'https://us-east5-aiplatform.googleapis.com', vertex: { projectId: 'sa-project', region: 'us-east5', serviceAccountJson: SA } },
    },
    {
      name: 'config project and region win over headers',
      node: { provider: 'vertex-ai', vertex_project_id: 'cfg-proj', vertex_region: 'us-central1' },
      creds: { vertexProjectId: 'hdr-proj', vertexRegion: 'europe-west1', apiKey: 'ya29.t' },
      want: { ...common, apiKey: 'ya29.t', baseUrl: 'https://us-central1-aiplatform.googleapis.com', vertex: { projectId: 'cfg-proj', region: 'us-central1' } },
    },
    {
      name: 'a config api_key is used as given (Portkey: verbatim as Bearer)',
      node: { provider: 'vertex-ai', api_key: 'opaque-token', vertex_project_id: 'cfg-proj' },
      creds: {},
      want: { ...common, apiKey: 'opaque-token', baseUrl: 'https://aiplatform.googleapis.com', vertex: { projectId: 'cfg-proj', region: 'global' } },
    },
  ])('$name', ({ node, creds, base, want }) => {
    const target = node === undefined ? undefined : (parseRoutingConfig(node) as ConfigTarget);
    expect(resolveTarget(target, headers(creds), env(base))).toStrictEqual(want);
  });
});

describe('routing config Vertex fields', () => {
  it.each([
    { name: 'a bad region', config: { provider: 'vertex-ai', vertex_region: 'US/Central' }, param: 'config.vertex_region' },
    { name: 'a key of another type', config: { provider: 'vertex-ai', vertex_service_account_json: { type: 'authorized_user' } }, param: 'config.vertex_service_account_json' },
    { name: 'a key and an api_key', config: { provider: 'vertex-ai', api_key: 'x', vertex_service_account_json: SA }, param: 'config.vertex_service_account_json' },
    { name: 'Vertex fields on a group', config: { strategy: { mode: 'fallback' }, vertex_region: 'global', targets: [{ provider: 'google' }] }, param: 'config.vertex_region' },
  ])('400 for $name', ({ config, param }) => {
    let err: unknown;
    try {
      parseRoutingConfig(config);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ status: 400, param });
    expect((err as Error).message).not.toContain('PRIVATE KEY');
  });

  it('accepts camelCase names, as configs written for Portkey use', () => {
    expect(parseRoutingConfig({ provider: 'vertex-ai', vertexProjectId: 'my-proj', vertexRegion: 'us-central1' })).toMatchObject({
      vertexProjectId: 'my-proj',
      vertexRegion: 'us-central1',
    });
  });
});
