/**
 * `POST /v1/files` and `GET /v1/files/{id}` (issue 3 item 10): OpenAI's files API in front of
 * Gemini's (gemini-wire §13). The upload is streamed: busboy parses the multipart body, the file
 * part is spooled (memory up to one chunk, then a temp file, see spool-part.ts for why the size
 * must be known first), then sent with the resumable protocol one 8 MiB chunk at a time. A 2 GB
 * file is never held in memory.
 *
 * The answer is an OpenAI file object plus `uri` (`{files_url}/v1beta/files/<id>`, usable in an
 * `image_url` part) and `mime_type`. Gemini keeps no purpose, so the purpose given at upload is
 * remembered in a bounded in-process map; a file read back on another instance says `user_data`.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Settings } from '../config/settings.js';
import { InvalidRequestError } from '../errors.js';
import type { ProviderName } from '../providers/provider.js';
import type { Route } from '../server/app.js';
import { sendJson } from '../server/respond.js';
import { createGeminiFilesClient, type GeminiFilesClient, type ProviderCredential } from '../providers/gemini/gemini-files-client.js';
import { fileTooLarge, parseUploadForm } from './parse-upload-form.js';
import { fileIdFromName } from '../openai/file-id.js';
import { toOpenAIFile, type OpenAIFilePurpose } from './to-openai-file.js';

export interface FilesRouteDeps {
  settings: Settings;
  /**
   * The provider and credential of a request (same `x-gateway-provider` / virtual-key /
   * `Authorization` headers as chat). Files are Gemini's: any other provider is refused here.
   */
  resolveProviderKey: (headers: IncomingHttpHeaders) => FilesCredential | Promise<FilesCredential>;
  /** Defaults to a client over its own keep-alive undici Agent. */
  filesClient?: GeminiFilesClient;
  /** Largest file accepted (default `settings.maxFileBytes` when present, else 2 GiB, Gemini's per-file limit). */
  maxFileBytes?: number;
  /** Bytes of a part kept in memory before spooling to disk (default 8 MiB, one upload chunk). */
  memoryBytes?: number;
  /** Directory for spooled parts (default the OS temp dir). */
  tmpDir?: string;
}

export interface FilesCredential extends ProviderCredential {
  provider: ProviderName;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const PURPOSES: ReadonlySet<string> = new Set<OpenAIFilePurpose>(['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals']);
/** Gemini file ids (§13.2): up to 40 lowercase alphanumerics or dashes, no dash at either end. */
const FILE_ID = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
/** Multipart boundaries and the `purpose` part never need more than this beyond the file. */
const MULTIPART_SLACK = 64 * 1024;
const PURPOSE_MEMORY = 10_000;

function checkPurpose(purpose: string | undefined): OpenAIFilePurpose {
  if (purpose === undefined || purpose === '') {
    throw new InvalidRequestError('missing the part "purpose" (e.g. "user_data")', { param: 'purpose', code: 'missing_purpose' });
  }
  if (!PURPOSES.has(purpose)) {
    throw new InvalidRequestError(`purpose ${JSON.stringify(purpose.slice(0, 64))} is not one of ${[...PURPOSES].join(', ')}`, {
      param: 'purpose',
      code: 'invalid_purpose',
    });
  }
  return purpose as OpenAIFilePurpose;
}

/** Files are Gemini's (gemini-wire §13): another provider is a 400 before anything is sent. */
async function geminiCredential(deps: FilesRouteDeps, headers: IncomingHttpHeaders): Promise<ProviderCredential> {
  const { provider, apiKey, baseUrl } = await deps.resolveProviderKey(headers);
  if (provider !== 'google') {
    throw new InvalidRequestError(`the files API is Gemini's; x-gateway-provider resolves to ${provider}, use google (or a Google virtual key)`, {
      param: 'x-gateway-provider',
      code: 'unsupported_provider',
    });
  }
  return { apiKey, baseUrl };
}

export function createFilesRoutes(deps: FilesRouteDeps): Route[] {
  const client = deps.filesClient ?? createGeminiFilesClient({ timeoutMs: deps.settings.upstreamTimeoutMs });
  const maxFileBytes = deps.maxFileBytes ?? (deps.settings as Settings & { maxFileBytes?: number }).maxFileBytes ?? 2 * GiB;
  const memoryBytes = deps.memoryBytes ?? 8 * MiB;
  const purposes = new Map<string, OpenAIFilePurpose>();

  function remember(id: string, purpose: OpenAIFilePurpose): void {
    if (purposes.size >= PURPOSE_MEMORY) purposes.delete(purposes.keys().next().value!);
    purposes.set(id, purpose);
  }

  async function upload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxFileBytes + MULTIPART_SLACK) throw fileTooLarge(maxFileBytes);
    const credential = await geminiCredential(deps, req.headers);

    const form = await parseUploadForm(req, {
      maxFileBytes,
      memoryBytes,
      ...(deps.tmpDir !== undefined ? { tmpDir: deps.tmpDir } : {}),
    });
    const { part, filename, mimeType } = form.file;
    let answer: ReturnType<typeof toOpenAIFile>;
    try {
      const purpose = checkPurpose(form.fields.purpose);
      if (part.size === 0) throw new InvalidRequestError('file is empty', { param: 'file', code: 'empty_file' });

      // A client that goes away cancels the upstream upload instead of finishing it for no one.
      const abort = new AbortController();
      const onClose = () => {
        if (!res.writableFinished) abort.abort();
      };
      res.on('close', onClose);
      try {
        const file = await client.upload({
          ...credential,
          displayName: filename,
          mimeType,
          size: part.size,
          body: part.open(),
          signal: abort.signal,
        });
        remember(fileIdFromName(file.name), purpose);
        answer = toOpenAIFile(file, { baseUrl: credential.baseUrl, purpose });
      } finally {
        res.off('close', onClose);
      }
    } finally {
      // Before answering, so a temp file never outlives the request the client saw end.
      await part.cleanup();
    }
    sendJson(res, 200, answer);
  }

  async function get(req: IncomingMessage, res: ServerResponse, params: Record<string, string>): Promise<void> {
    const id = params.id ?? '';
    if (!FILE_ID.test(id)) {
      throw new InvalidRequestError(`file id ${JSON.stringify(id.slice(0, 64))} is not a Gemini file id (lowercase letters, digits and dashes, at most 40)`, {
        param: 'file_id',
        code: 'invalid_file_id',
      });
    }
    const credential = await geminiCredential(deps, req.headers);
    const file = await client.getFile({ ...credential, id });
    sendJson(res, 200, toOpenAIFile(file, { baseUrl: credential.baseUrl, purpose: purposes.get(id) ?? 'user_data' }));
  }

  return [
    { method: 'POST', path: '/v1/files', handler: upload },
    { method: 'GET', path: '/v1/files/:id', handler: get },
  ];
}
