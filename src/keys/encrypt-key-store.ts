/**
 * Encryption at rest of the writable virtual-key store: the whole key list as one AES-256-GCM
 * envelope (`{dataDir}/virtual-keys.enc`), and the 32-byte master key it is sealed with
 * (`SIDEGATE_MASTER_KEY`, else `{dataDir}/master.key`, generated on first use with mode 0600).
 * Messages never hold a key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { VirtualKeyStoreError, type StoredKey } from './stored-key.js';

const STORE_FORMAT = 'sidegate-virtual-keys';
const AAD = Buffer.from('sidegate-virtual-keys-v1');

const EncryptedFileSchema = z.object({
  format: z.literal(STORE_FORMAT),
  version: z.literal(1),
  iv: z.string(),
  tag: z.string(),
  ciphertext: z.string(),
});

const StoredKeysSchema = z.object({
  keys: z.array(
    z.object({
      slug: z.string(),
      provider: z.enum(['google', 'openai', 'vertex-ai']),
      api_key: z.string(),
      custom_host: z.string().optional(),
      vertex_project_id: z.string().optional(),
      vertex_region: z.string().optional(),
      vertex_service_account_json: z.string().optional(),
      created_at: z.string(),
    }),
  ),
});

export function encryptStore(keys: readonly StoredKey[], masterKey: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  cipher.setAAD(AAD);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify({ keys }), 'utf8'), cipher.final()]);
  return `${JSON.stringify({
    format: STORE_FORMAT,
    version: 1,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  })}\n`;
}

export async function decryptStore(raw: string, masterKey: Buffer): Promise<StoredKey[]> {
  let envelope: z.infer<typeof EncryptedFileSchema>;
  try {
    envelope = EncryptedFileSchema.parse(JSON.parse(raw));
  } catch {
    throw new Error('not a sidegate virtual-key store');
  }
  let plaintext: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(envelope.iv, 'base64'));
    decipher.setAAD(AAD);
    decipher.setAuthTag(Buffer.from(envelope.tag, 'base64'));
    plaintext = Buffer.concat([decipher.update(Buffer.from(envelope.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('cannot decrypt with this master key (was SIDEGATE_MASTER_KEY or master.key changed?)');
  }
  return StoredKeysSchema.parse(JSON.parse(plaintext)).keys.map((k) => ({
    slug: k.slug,
    provider: k.provider,
    api_key: k.api_key,
    ...(k.custom_host !== undefined ? { custom_host: k.custom_host } : {}),
    ...(k.vertex_project_id !== undefined ? { vertex_project_id: k.vertex_project_id } : {}),
    ...(k.vertex_region !== undefined ? { vertex_region: k.vertex_region } : {}),
    ...(k.vertex_service_account_json !== undefined ? { vertex_service_account_json: k.vertex_service_account_json } : {}),
    created_at: k.created_at,
  }));
}

/** Decodes `SIDEGATE_MASTER_KEY`: 64 hex characters, or base64 / base64url of 32 bytes. */
export function parseMasterKey(value: string): Buffer {
  const v = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(v)) {
    const key = Buffer.from(v, v.includes('-') || v.includes('_') ? 'base64url' : 'base64');
    if (key.length === 32) return key;
  }
  throw new VirtualKeyStoreError(
    'SIDEGATE_MASTER_KEY must be 32 random bytes as 64 hex characters or 44 base64 characters (e.g. `openssl rand -base64 32`)',
  );
}

export async function loadOrCreateKeyFile(path: string): Promise<Buffer> {
  try {
    await writeFile(path, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new VirtualKeyStoreError(`cannot create master key file ${path}: ${(err as Error).message}`);
    }
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new VirtualKeyStoreError(`cannot read master key file ${path}: ${(err as Error).message}`);
  }
  try {
    return parseMasterKey(text);
  } catch {
    throw new VirtualKeyStoreError(`master key file ${path} does not hold a 32-byte base64 or hex key`);
  }
}
