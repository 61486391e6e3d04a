/**
 * The shape a virtual key is stored in (both the encrypted store and the read-only keys file),
 * the schema a new key is validated with, and the store's startup error. Pure.
 */
import { z } from 'zod';
import type { ProviderName } from '../providers/provider.js';

/** A startup problem with the key store (bad master key, unreadable or undecryptable file). */
export class VirtualKeyStoreError extends Error {}

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const VirtualKeyInputSchema = z.strictObject({
  slug: z.string().regex(SLUG, 'slug: 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit'),
  provider: z.enum(['google', 'openai']),
  api_key: z
    .string()
    .min(1, 'api_key is empty')
    .max(8192)
    .regex(/^[\x21-\x7e]+$/, 'api_key must be printable ASCII without spaces'),
  custom_host: z.url({ protocol: /^https?$/, error: 'custom_host must be an http(s) URL' }).optional(),
});

export interface StoredKey {
  slug: string;
  provider: ProviderName;
  api_key: string;
  custom_host?: string;
  created_at: string;
}

