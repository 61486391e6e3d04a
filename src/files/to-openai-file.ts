/**
 * Gemini `File` resource (gemini-wire §13.2) → the OpenAI file object `POST /v1/files` and
 * `GET /v1/files/{id}` answer with, plus `uri` (the `{files_url}/v1beta/files/<id>` URL to put in
 * an `image_url` part, DESIGN Decision 11) and `mime_type`. Pure.
 */
import { scrubSecrets } from '../scrub-secrets.js';
import type { GeminiFile } from '../providers/gemini/gemini-files-client.js';
import { fileIdFromName } from '../openai/file-id.js';

export type OpenAIFilePurpose = 'assistants' | 'batch' | 'fine-tune' | 'vision' | 'user_data' | 'evals';

export interface OpenAIFileObject {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  expires_at?: number;
  filename: string;
  purpose: OpenAIFilePurpose;
  /** OpenAI's (deprecated) status: Gemini PROCESSING → `uploaded`, ACTIVE → `processed`, FAILED → `error`. */
  status: 'uploaded' | 'processed' | 'error';
  status_details?: string;
  /** The provider file URL to use in an `image_url` part. */
  uri: string;
  mime_type: string;
}

export function toOpenAIFile(
  file: GeminiFile,
  context: { baseUrl: string; purpose: OpenAIFilePurpose; now?: number },
): OpenAIFileObject {
  const id = fileIdFromName(file.name);
  const created = file.createTime ? Date.parse(file.createTime) : Number.NaN;
  const expires = file.expirationTime ? Date.parse(file.expirationTime) : Number.NaN;
  const bytes = Number(file.sizeBytes ?? 0);
  const status = file.state === 'ACTIVE' ? 'processed' : file.state === 'FAILED' ? 'error' : 'uploaded';
  return {
    id,
    object: 'file',
    bytes: Number.isFinite(bytes) ? bytes : 0,
    created_at: Math.floor((Number.isNaN(created) ? (context.now ?? Date.now()) : created) / 1000),
    ...(Number.isNaN(expires) ? {} : { expires_at: Math.floor(expires / 1000) }),
    filename: file.displayName ?? id,
    purpose: context.purpose,
    status,
    ...(status === 'error' && file.error?.message ? { status_details: scrubSecrets(file.error.message) } : {}),
    uri: `${context.baseUrl}/v1beta/files/${id}`,
    mime_type: file.mimeType ?? 'application/octet-stream',
  };
}
