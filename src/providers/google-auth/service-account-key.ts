/**
 * A service-account key file (the JSON `gcloud iam service-accounts keys create` writes), checked
 * before it is used or stored. Pure. Errors name the field, never a value.
 */
import { z } from 'zod';

/** The fields of a key the gateway reads; the file has more (client_id, auth_uri, …). */
const KeySchema = z.looseObject({
  type: z.literal('service_account', { error: 'type must be "service_account"' }),
  client_email: z.string().min(3).max(320),
  private_key: z.string().min(1).max(16_384),
  private_key_id: z.string().max(256).optional(),
  project_id: z.string().max(128).optional(),
  token_uri: z.url({ protocol: /^https?$/, error: 'token_uri must be an http(s) URL' }).optional(),
});

export interface ServiceAccountKey {
  clientEmail: string;
  privateKey: string;
  privateKeyId?: string;
  projectId?: string;
  /** Where the signed JWT is exchanged for a token; Google's `https://oauth2.googleapis.com/token` when absent. */
  tokenUri: string;
}

export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** Parses key JSON (text or an object). Throws an `Error` whose message names the problem. */
export function parseServiceAccountKey(input: unknown): ServiceAccountKey {
  let json = input;
  if (typeof input === 'string') {
    try {
      json = JSON.parse(input);
    } catch {
      throw new Error('the service-account key is not JSON');
    }
  }
  const parsed = KeySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.');
    throw new Error(`the service-account key ${field ? `field ${field} ` : ''}is invalid${issue.message.startsWith(field) ? `: ${issue.message}` : ''}`);
  }
  const k = parsed.data;
  return {
    clientEmail: k.client_email,
    privateKey: k.private_key,
    ...(k.private_key_id !== undefined ? { privateKeyId: k.private_key_id } : {}),
    ...(k.project_id !== undefined ? { projectId: k.project_id } : {}),
    tokenUri: k.token_uri ?? GOOGLE_TOKEN_URI,
  };
}
