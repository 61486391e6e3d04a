/**
 * The shape a virtual key is stored in (both the encrypted store and the read-only keys file),
 * the schema a new key is validated with, and the store's startup error. Pure.
 */
import { z } from 'zod';
import { parseServiceAccountKey } from '../providers/google-auth/service-account-key.js';
import type { ProviderName } from '../providers/provider.js';
import { isVertexProjectId, isVertexRegion } from '../providers/vertex/vertex-endpoint.js';

/** A startup problem with the key store (bad master key, unreadable or undecryptable file). */
export class VirtualKeyStoreError extends Error {}

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const ApiKey = z
  .string()
  .min(1, 'api_key is empty')
  .max(8192)
  .regex(/^[\x21-\x7e]+$/, 'api_key must be printable ASCII without spaces');

export const VirtualKeyInputSchema = z
  .strictObject({
    slug: z.string().regex(SLUG, 'slug: 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit'),
    provider: z.enum(['google', 'openai', 'vertex-ai']),
    /** Required except for `vertex-ai`, where it is an access token or an express-mode key. */
    api_key: ApiKey.optional(),
    custom_host: z.url({ protocol: /^https?$/, error: 'custom_host must be an http(s) URL' }).optional(),
    vertex_project_id: z.string().refine(isVertexProjectId, 'vertex_project_id must be a Google Cloud project ID').optional(),
    vertex_region: z.string().refine(isVertexRegion, 'vertex_region must be a Google Cloud region, global, us or eu').optional(),
    /** A service-account key file's JSON (text or object); stored encrypted like every key. */
    vertex_service_account_json: z.union([z.string().min(2).max(65_536), z.record(z.string(), z.unknown())]).optional(),
  })
  .superRefine((k, ctx) => {
    const vertexField = (['vertex_project_id', 'vertex_region', 'vertex_service_account_json'] as const).find((f) => k[f] !== undefined);
    if (k.provider !== 'vertex-ai') {
      if (k.api_key === undefined) ctx.addIssue({ code: 'custom', path: ['api_key'], message: 'api_key is required' });
      if (vertexField) ctx.addIssue({ code: 'custom', path: [vertexField], message: `${vertexField} needs provider vertex-ai` });
      return;
    }
    if (k.vertex_service_account_json === undefined) return;
    if (k.api_key !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['api_key'], message: 'give either api_key or vertex_service_account_json' });
      return;
    }
    try {
      parseServiceAccountKey(k.vertex_service_account_json);
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['vertex_service_account_json'], message: (err as Error).message });
    }
  });

export type VirtualKeyInputValue = z.infer<typeof VirtualKeyInputSchema>;

export interface StoredKey {
  slug: string;
  provider: ProviderName;
  /** Empty for a Vertex AI key that holds a service-account key or uses the pod's ADC. */
  api_key: string;
  custom_host?: string;
  vertex_project_id?: string;
  vertex_region?: string;
  vertex_service_account_json?: string;
  created_at: string;
}

/** A validated input as stored; a service-account key's `project_id` fills a missing project. */
export function toStoredKey(k: VirtualKeyInputValue, createdAt: string): StoredKey {
  const json = k.vertex_service_account_json;
  const keyJson = json === undefined ? undefined : typeof json === 'string' ? json : JSON.stringify(json);
  const projectId = k.vertex_project_id ?? (keyJson !== undefined ? parseServiceAccountKey(keyJson).projectId : undefined);
  return {
    slug: k.slug,
    provider: k.provider,
    api_key: k.api_key ?? '',
    ...(k.custom_host !== undefined ? { custom_host: k.custom_host } : {}),
    ...(projectId !== undefined ? { vertex_project_id: projectId } : {}),
    ...(k.vertex_region !== undefined ? { vertex_region: k.vertex_region } : {}),
    ...(keyJson !== undefined ? { vertex_service_account_json: keyJson } : {}),
    created_at: createdAt,
  };
}
