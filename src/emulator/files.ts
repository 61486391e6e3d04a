// Files API of gemini-wire.md §13: the three-step resumable upload (start → upload → finalize) with
// `x-goog-upload-url` / `x-goog-upload-status`, `File` resources with string `sizeBytes`, a
// PROCESSING → ACTIVE progression and 48 h expiry. Upload bodies are streamed: only the size, a
// SHA-256 and the first bytes are kept.

import { createHash, randomBytes, type Hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { googleError } from './errors.js';
import { writeJson } from './respond.js';

/** A stored file's `File` JSON plus what the emulator keeps of its bytes. */
export interface StoredFile {
  resource: Record<string, unknown> & { name: string; state: string; sizeBytes: string; mimeType: string; uri: string };
  /** The first bytes of the content (at most 64). */
  head: Buffer;
  /** GETs left that still report PROCESSING. */
  pollsLeft: number;
}

interface UploadSession {
  id: string;
  displayName?: string;
  mimeType: string;
  declaredSize?: number;
  received: number;
  hash: Hash;
  head: Buffer;
}

const ID_RULE = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
const HEAD_BYTES = 64;
const EXPIRY_MS = 48 * 3600 * 1000;
const START_FIELDS = new Set(['displayName', 'display_name', 'name', 'mimeType', 'mime_type', 'sizeBytes', 'size_bytes']);

export interface FileStoreOptions {
  /** Largest upload accepted (default 2 GiB, §13.3). */
  maxFileBytes?: number;
  /** GETs that still report PROCESSING for non-image files after finalize (default 1). */
  processingPolls?: number;
}

function newId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(12);
  let s = '';
  for (const b of bytes) s += alphabet[b % alphabet.length];
  return s;
}

/** The emulator's file store and upload sessions. */
export class FileStore {
  readonly files = new Map<string, StoredFile>();
  private readonly sessions = new Map<string, UploadSession>();
  private readonly maxFileBytes: number;
  private readonly processingPolls: number;

  constructor(options: FileStoreOptions = {}) {
    this.maxFileBytes = options.maxFileBytes ?? 2 * 1024 ** 3;
    this.processingPolls = options.processingPolls ?? 1;
  }

  /** State lookup for request validation (fileData references). */
  readonly state = (id: string): 'PROCESSING' | 'ACTIVE' | 'FAILED' | undefined =>
    this.files.get(id)?.resource.state as 'PROCESSING' | 'ACTIVE' | 'FAILED' | undefined;

  clear(): void {
    this.files.clear();
    this.sessions.clear();
  }

  /** Step 1 (§13.1): `POST /upload/v1beta/files` with `X-Goog-Upload-Command: start`. */
  start(req: IncomingMessage, res: ServerResponse, body: unknown, baseUrl: string): void {
    const h = req.headers;
    if (String(h['x-goog-upload-protocol'] ?? '').toLowerCase() !== 'resumable' || String(h['x-goog-upload-command'] ?? '').toLowerCase() !== 'start') {
      writeJson(res, 400, googleError(400, 'The emulator supports only the resumable upload protocol (X-Goog-Upload-Protocol: resumable, X-Goog-Upload-Command: start).'));
      return;
    }
    const file = (typeof body === 'object' && body !== null ? (body as { file?: unknown }).file : undefined) ?? {};
    if (typeof file !== 'object' || file === null || Array.isArray(file)) {
      writeJson(res, 400, googleError(400, `Invalid value at 'file' (type.googleapis.com/google.ai.generativelanguage.v1beta.File)`));
      return;
    }
    const f = file as Record<string, unknown>;
    for (const key of Object.keys(f)) {
      if (!START_FIELDS.has(key)) {
        writeJson(res, 400, googleError(400, `Invalid JSON payload received. Unknown name ${JSON.stringify(key)} at 'file': Cannot find field.`));
        return;
      }
    }
    let id = newId();
    if (typeof f.name === 'string') {
      id = f.name.startsWith('files/') ? f.name.slice(6) : f.name;
      if (!ID_RULE.test(id)) {
        writeJson(res, 400, googleError(400, `Invalid file name "${f.name}": ids are up to 40 lowercase letters, digits or dashes, not starting or ending with a dash.`));
        return;
      }
      if (this.files.has(id)) {
        writeJson(res, 409, googleError(409, `File files/${id} already exists.`, { status: 'ALREADY_EXISTS' }));
        return;
      }
    }
    const declared = h['x-goog-upload-header-content-length'];
    const declaredSize = declared === undefined ? undefined : Number(declared);
    if (declaredSize !== undefined && (!Number.isFinite(declaredSize) || declaredSize < 0)) {
      writeJson(res, 400, googleError(400, 'X-Goog-Upload-Header-Content-Length must be a byte count.'));
      return;
    }
    if (declaredSize !== undefined && declaredSize > this.maxFileBytes) {
      writeJson(res, 400, googleError(400, `File size ${declaredSize} exceeds the limit of ${this.maxFileBytes} bytes.`));
      return;
    }
    const mimeType =
      String(h['x-goog-upload-header-content-type'] ?? '') || (f.mimeType as string) || (f.mime_type as string) || 'application/octet-stream';
    const uploadId = randomBytes(16).toString('hex');
    const session: UploadSession = { id, mimeType, received: 0, hash: createHash('sha256'), head: Buffer.alloc(0) };
    const displayName = (f.displayName ?? f.display_name) as string | undefined;
    if (displayName !== undefined) session.displayName = displayName;
    if (declaredSize !== undefined) session.declaredSize = declaredSize;
    this.sessions.set(uploadId, session);
    res.writeHead(200, {
      'x-goog-upload-url': `${baseUrl}/upload/v1beta/files?upload_id=${uploadId}&upload_protocol=resumable`,
      'x-goog-upload-status': 'active',
      'x-goog-upload-chunk-granularity': '8388608',
      'content-length': 0,
    });
    res.end();
  }

  /** Steps 2–3: `upload`, `upload, finalize`, `finalize`, `query` or `cancel` on an upload URL. */
  async chunk(req: IncomingMessage, res: ServerResponse, uploadId: string, baseUrl: string): Promise<number> {
    const session = this.sessions.get(uploadId);
    if (!session) {
      req.resume();
      writeJson(res, 404, googleError(404, 'Upload session not found or already finalized.'));
      return 0;
    }
    const commands = new Set(String(req.headers['x-goog-upload-command'] ?? '').split(',').map((c) => c.trim().toLowerCase()));
    if (commands.has('cancel')) {
      req.resume();
      this.sessions.delete(uploadId);
      res.writeHead(200, { 'x-goog-upload-status': 'cancelled', 'content-length': 0 });
      res.end();
      return 0;
    }
    if (commands.has('query')) {
      req.resume();
      res.writeHead(200, { 'x-goog-upload-status': 'active', 'x-goog-upload-size-received': String(session.received), 'content-length': 0 });
      res.end();
      return 0;
    }
    if (!commands.has('upload') && !commands.has('finalize')) {
      req.resume();
      writeJson(res, 400, googleError(400, 'X-Goog-Upload-Command must be upload, finalize, query or cancel.'));
      return 0;
    }
    let bytes = 0;
    if (commands.has('upload')) {
      const offset = Number(req.headers['x-goog-upload-offset'] ?? 0);
      if (offset !== session.received) {
        req.resume();
        writeJson(res, 400, googleError(400, `Invalid X-Goog-Upload-Offset ${offset}: ${session.received} bytes were received so far.`));
        return 0;
      }
      for await (const piece of req as AsyncIterable<Buffer>) {
        bytes += piece.length;
        session.received += piece.length;
        if (session.received > this.maxFileBytes) {
          this.sessions.delete(uploadId);
          writeJson(res, 400, googleError(400, `File size exceeds the limit of ${this.maxFileBytes} bytes.`), { connection: 'close' });
          req.destroy();
          return bytes;
        }
        session.hash.update(piece);
        if (session.head.length < HEAD_BYTES) {
          session.head = Buffer.concat([session.head, piece.subarray(0, HEAD_BYTES - session.head.length)]);
        }
      }
    } else {
      req.resume();
    }
    if (!commands.has('finalize')) {
      res.writeHead(200, { 'x-goog-upload-status': 'active', 'x-goog-upload-size-received': String(session.received), 'content-length': 0 });
      res.end();
      return bytes;
    }
    this.sessions.delete(uploadId);
    if (session.declaredSize !== undefined && session.declaredSize !== session.received) {
      writeJson(res, 400, googleError(400, `Upload size mismatch: declared ${session.declaredSize} bytes, received ${session.received}.`));
      return bytes;
    }
    const now = Date.now();
    const image = session.mimeType.startsWith('image/');
    const polls = image ? 0 : this.processingPolls;
    const resource: StoredFile['resource'] = {
      name: `files/${session.id}`,
      mimeType: session.mimeType,
      sizeBytes: String(session.received),
      createTime: new Date(now).toISOString(),
      updateTime: new Date(now).toISOString(),
      expirationTime: new Date(now + EXPIRY_MS).toISOString(),
      sha256Hash: session.hash.digest('base64'),
      uri: `${baseUrl}/v1beta/files/${session.id}`,
      state: polls > 0 ? 'PROCESSING' : 'ACTIVE',
      source: 'UPLOADED',
    };
    if (session.displayName !== undefined) resource.displayName = session.displayName;
    this.files.set(session.id, { resource, head: session.head, pollsLeft: polls });
    res.writeHead(200, { 'x-goog-upload-status': 'final' });
    res.end(JSON.stringify({ file: resource }, null, 2));
    return bytes;
  }

  /** `GET /v1beta/files/{id}`; each GET moves a PROCESSING file one poll closer to ACTIVE. */
  get(id: string): StoredFile['resource'] | undefined {
    const f = this.files.get(id);
    if (!f) return undefined;
    const snapshot = { ...f.resource };
    if (f.pollsLeft > 0 && --f.pollsLeft === 0) {
      f.resource.state = 'ACTIVE';
      f.resource.updateTime = new Date().toISOString();
    }
    return snapshot;
  }

  delete(id: string): boolean {
    return this.files.delete(id);
  }

  /** `GET /v1beta/files?pageSize=&pageToken=` (default 10, max 100), newest first. */
  list(pageSize: number, pageToken: string | null): Record<string, unknown> {
    const all = [...this.files.values()].reverse();
    const size = Math.min(100, pageSize > 0 ? pageSize : 10);
    const from = pageToken ? Number(Buffer.from(pageToken, 'base64url').toString()) || 0 : 0;
    const page = all.slice(from, from + size).map((f) => f.resource);
    const out: Record<string, unknown> = {};
    if (page.length > 0) out.files = page;
    if (from + size < all.length) out.nextPageToken = Buffer.from(String(from + size)).toString('base64url');
    return out;
  }
}

/** 403 text for a file that is missing or not the caller's (§11.2). */
export function fileNotFound(id: string) {
  return googleError(403, `You do not have permission to access the File ${id} or it may not exist.`);
}
