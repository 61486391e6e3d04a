/**
 * `POST /v1/responses`, `GET /v1/responses/{id}`, `GET /v1/responses/{id}/input_items`,
 * `DELETE /v1/responses/{id}` (issue 14). A front door (DESIGN Decision 17): it parses its own
 * shapes, reads its state from the store, translates to the gateway's chat request, and hands it
 * to the one shared chat path (`server/run-chat-operation.ts`: plan, routing, retries, fallbacks,
 * attempt spans, writing, span end) with an adapter that writes the Responses shapes. It knows
 * nothing of Gemini.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { canonicalHeader } from '../config/header-aliases.js';
import type { Settings } from '../config/settings.js';
import { InvalidRequestError, NotFoundError, toErrorResponse } from '../errors.js';
import type { Route } from '../server/app.js';
import type { OperationDeps } from '../server/open-operation.js';
import { readJsonBodyWithBlobs } from '../server/read-body.js';
import { readRequestContext, type RequestContextEnv } from '../server/request-context.js';
import { sendJson } from '../server/respond.js';
import { runChatOperation, type ChatResponseAdapter } from '../server/run-chat-operation.js';
import type { SseEvent } from '../server/sse-writer.js';
import { parseResponsesRequest } from './parse-responses-request.js';
import { completionToResponse, presentItem, presentResponse, ResponseBuilder, type Exposure } from './response-builder.js';
import { responseEcho } from './response-echo.js';
import { newResponseId } from './response-ids.js';
import type { OutputItem, ResponseObject, ResponseStreamEvent } from './response-object.js';
import type { ResponseStore, StoredInputItem } from './response-store.js';
import { responsesProviders } from './responses-providers.js';
import { resolveInput } from './resolve-input.js';
import { stripMedia } from './stored-media.js';
import { toChatRequest } from './to-chat-request.js';

export interface ResponsesRouteDeps extends OperationDeps {
  settings: Settings;
  contextEnv: RequestContextEnv;
  store: ResponseStore;
  log?: (line: string) => void;
}

/** What the client may see: signatures only with strict compliance off; `encrypted_content` also when included. */
function exposure(strict: boolean, include: readonly string[] | null | undefined): Exposure {
  return { signatures: !strict, encryptedContent: !strict || (include ?? []).includes('reasoning.encrypted_content') };
}

function isStrict(req: IncomingMessage): boolean {
  const value = canonicalHeader(req.headers, 'x-gateway-strict-compliance');
  return value === undefined || value.trim().toLowerCase() !== 'false';
}

const sse = (events: ResponseStreamEvent[]): SseEvent[] => events.map((data) => ({ event: data.type, data }));

export function createResponsesRoutes(deps: ResponsesRouteDeps): Route[] {
  const { store } = deps;
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  async function create(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBodyWithBlobs(req, deps.settings.maxBodyBytes);
    try {
      const parsed = parseResponsesRequest(body.value);
      const context = await readRequestContext(req.headers, deps.contextEnv);
      const responseId = newResponseId();
      const resolved = await resolveInput(parsed, store, responseId);
      const translation = toChatRequest(parsed, resolved.items);
      const expose = exposure(context.credentials.strictCompliance, parsed.include);
      const options = {
        responseId,
        createdAt: Math.floor(Date.now() / 1000),
        echo: responseEcho(parsed),
        firstItemIndex: resolved.own.length,
        expose,
      };
      // The store registers a record synchronously in `put` (memory, or disk's pending map), so a
      // follow-up request sent as soon as this answer arrives finds it; a failed disk write is logged.
      const keep = (response: ResponseObject): void => {
        if (parsed.store === false) return;
        store.put({ response, input: resolved.own.map((item) => stripMedia(item)) }).catch((err: unknown) => {
          log(`sidegate: could not store response ${responseId}: ${err instanceof Error ? err.message : typeof err}`);
        });
      };
      const builder = new ResponseBuilder(options);
      const adapter: ChatResponseAdapter = {
        route: '/v1/responses',
        json(result) {
          const response = completionToResponse(result.completion, options);
          keep(response);
          return presentResponse(response, expose);
        },
        streamStart: () => sse(builder.start()),
        streamChunk: (chunk) => sse(builder.push(chunk)),
        streamEnd() {
          const events = builder.finish();
          keep(builder.response());
          return sse(events);
        },
        streamError: (error) => sse(builder.fail(toErrorResponse(error).body.error)),
      };
      const providers = responsesProviders(deps.providers, [...resolved.warnings, ...translation.warnings], translation.messageParams);
      await runChatOperation({ ...deps, providers }, res, { context, request: translation.request, adapter });
    } finally {
      body.release();
    }
  }

  async function load(id: string) {
    const record = await store.get(id);
    if (!record) {
      throw new NotFoundError(`Response with id '${id}' not found (unknown, deleted or expired).`, { param: 'response_id', code: 'response_not_found' });
    }
    return record;
  }

  async function get(req: IncomingMessage, res: ServerResponse, params: Record<string, string>): Promise<void> {
    const record = await load(params.id!);
    sendJson(res, 200, presentResponse(record.response, exposure(isStrict(req), [])));
  }

  async function inputItems(req: IncomingMessage, res: ServerResponse, params: Record<string, string>): Promise<void> {
    const record = await load(params.id!);
    const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
    const order = query.get('order') ?? 'desc';
    if (order !== 'asc' && order !== 'desc') {
      throw new InvalidRequestError("order: must be 'asc' or 'desc'", { param: 'order', code: 'invalid_value' });
    }
    const limitText = query.get('limit') ?? '20';
    const limit = Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      throw new InvalidRequestError('limit: must be an integer from 1 to 100', { param: 'limit', code: 'invalid_value' });
    }
    const expose = exposure(isStrict(req), []);
    let items = record.input.map((item) => presentItem(item as unknown as OutputItem, expose) as unknown as StoredInputItem);
    if (order === 'desc') items = items.reverse();
    const after = query.get('after');
    if (after !== null) {
      const at = items.findIndex((i) => i.id === after);
      if (at === -1) throw new InvalidRequestError(`after: no input item '${after}' in this response`, { param: 'after', code: 'invalid_value' });
      items = items.slice(at + 1);
    }
    const data = items.slice(0, limit);
    sendJson(res, 200, {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: items.length > limit,
    });
  }

  async function remove(_req: IncomingMessage, res: ServerResponse, params: Record<string, string>): Promise<void> {
    const id = params.id!;
    if (!(await store.delete(id))) {
      throw new NotFoundError(`Response with id '${id}' not found (unknown, deleted or expired).`, { param: 'response_id', code: 'response_not_found' });
    }
    sendJson(res, 200, { id, object: 'response', deleted: true });
  }

  return [
    { method: 'POST', path: '/v1/responses', handler: create },
    { method: 'GET', path: '/v1/responses/:id', handler: get },
    { method: 'DELETE', path: '/v1/responses/:id', handler: remove },
    { method: 'GET', path: '/v1/responses/:id/input_items', handler: inputItems },
  ];
}
