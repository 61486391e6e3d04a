/**
 * Prompt routes. Serving (gateway key): `POST /v1/prompts/{id}/completions` renders the prompt
 * and hands the chat-completions request it becomes to the one shared operation path (DESIGN
 * Decision 17), so routing configs, virtual keys, streaming, retries and spans are exactly those
 * of `POST /v1/chat/completions`; `POST /v1/prompts/{id}/render` answers that request without
 * calling anyone. Admin (`SIDEGATE_ADMIN_KEY`, 404 when unset, Decision 12): `POST /v1/prompts`,
 * `GET /v1/prompts`, `GET /v1/prompts/{id}` (`?version=N` or `?label=L`),
 * `PUT /v1/prompts/{id}/labels`. This module knows prompts, not providers or spans.
 */
import type { IncomingMessage } from 'node:http';
import { InvalidRequestError } from '../errors.js';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import { adminKeyCheck } from '../server/auth.js';
import type { Route } from '../server/app.js';
import type { OperationDeps } from '../server/open-operation.js';
import { readJsonBody } from '../server/read-body.js';
import { readRequestContext, type RequestContextEnv } from '../server/request-context.js';
import { sendJson } from '../server/respond.js';
import { chatCompletionsAdapter, runChatOperation, type ChatResponseAdapter } from '../server/run-chat-operation.js';
import {
  ATTR_GATEWAY_PROMPT_ID,
  ATTR_GATEWAY_PROMPT_LABEL,
  ATTR_GATEWAY_PROMPT_VARIABLES,
  ATTR_GATEWAY_PROMPT_VERSION,
} from '../telemetry/gateway-attributes.js';
import { buildChatRequest, parsePromptCall } from './prompt-call.js';
import type { PromptSelector, PromptStore, ResolvedPrompt } from './prompt-store.js';
import { renderPrompt } from './render-prompt.js';

/** Which prompt version a call used. */
export interface PromptUse {
  id: string;
  version: number;
  label?: string;
  /** The variables it was rendered with (defaults filled in). */
  variables: Record<string, unknown>;
}

export interface PromptRouteDeps extends OperationDeps {
  contextEnv: RequestContextEnv;
  store: PromptStore;
  adminKey: string | undefined;
  maxBodyBytes: number;
}

const MAX_ADMIN_BODY = 1024 * 1024;

export function createPromptRoutes(deps: PromptRouteDeps): Route[] {
  const checkAdmin = adminKeyCheck(deps.adminKey);

  async function prepare(req: IncomingMessage, id: string): Promise<{ request: ChatCompletionRequest; use: PromptUse }> {
    const call = parsePromptCall(await readJsonBody(req, deps.maxBodyBytes));
    const resolved = deps.store.resolve(id, call.selector);
    const rendered = renderPrompt(resolved.version, call.variables, resolved.resolvePartial);
    const request = buildChatRequest(rendered, call.overrides);
    return { request, use: promptUse(resolved, rendered.variables) };
  }

  return [
    {
      method: 'POST',
      path: '/v1/prompts/:id/completions',
      handler: async (req, res, params) => {
        const { request, use } = await prepare(req, params.id ?? '');
        const context = await readRequestContext(req.headers, deps.contextEnv);
        await runChatOperation(deps, res, { context, request, adapter: promptAdapter(use) });
      },
    },
    {
      method: 'POST',
      path: '/v1/prompts/:id/render',
      handler: async (req, res, params) => {
        const { request, use } = await prepare(req, params.id ?? '');
        sendJson(res, 200, request, promptHeaders(use));
      },
    },
    {
      method: 'POST',
      path: '/v1/prompts',
      auth: 'self',
      handler: async (req, res) => {
        checkAdmin(req.headers);
        const version = await deps.store.create(await readJsonBody(req, MAX_ADMIN_BODY));
        sendJson(res, 201, { object: 'prompt', ...version.template });
      },
    },
    {
      method: 'GET',
      path: '/v1/prompts',
      auth: 'self',
      handler: (req, res) => {
        checkAdmin(req.headers);
        const data = deps.store.list().map((p) => ({ object: 'prompt', ...p }));
        sendJson(res, 200, { object: 'list', data, problems: deps.store.problems(), read_only: !deps.store.writable });
      },
    },
    {
      method: 'GET',
      path: '/v1/prompts/:id',
      auth: 'self',
      handler: (req, res, params) => {
        checkAdmin(req.headers);
        const id = params.id ?? '';
        const resolved = deps.store.resolve(id, selectorFromQuery(req.url ?? ''));
        const labels = deps.store.list().find((p) => p.id === id)?.labels ?? {};
        sendJson(res, 200, { object: 'prompt', ...resolved.version.template, labels });
      },
    },
    {
      method: 'PUT',
      path: '/v1/prompts/:id/labels',
      auth: 'self',
      handler: async (req, res, params) => {
        checkAdmin(req.headers);
        const id = params.id ?? '';
        const labels = await deps.store.setLabels(id, await readJsonBody(req, MAX_ADMIN_BODY));
        sendJson(res, 200, { object: 'prompt.labels', id, labels });
      },
    },
  ];
}

/**
 * Chat-completions shapes (a prompt completion answers exactly like a chat completion), with the
 * prompt on the request span: `gateway.prompt.id`, `.version`, `.label`, and the variables only
 * when message-content capture is on (they are user content).
 */
function promptAdapter(use: PromptUse): ChatResponseAdapter {
  return {
    ...chatCompletionsAdapter,
    route: '/v1/prompts/{id}/completions',
    spanAttributes: {
      [ATTR_GATEWAY_PROMPT_ID]: use.id,
      [ATTR_GATEWAY_PROMPT_VERSION]: use.version,
      ...(use.label !== undefined ? { [ATTR_GATEWAY_PROMPT_LABEL]: use.label } : {}),
    },
    spanContentAttributes: { [ATTR_GATEWAY_PROMPT_VARIABLES]: JSON.stringify(use.variables) },
  };
}

function promptUse(resolved: ResolvedPrompt, variables: Record<string, unknown>): PromptUse {
  return {
    id: resolved.version.template.id,
    version: resolved.version.template.version,
    ...(resolved.label !== undefined ? { label: resolved.label } : {}),
    variables,
  };
}

/** Which version `/render` used (the body itself is exactly what a chat completion would take). */
function promptHeaders(use: PromptUse): Record<string, string> {
  return { 'x-gateway-prompt-id': use.id, 'x-gateway-prompt-version': String(use.version) };
}

/** `?version=N` or `?label=L` (not both). */
export function selectorFromQuery(url: string): PromptSelector {
  const q = url.indexOf('?');
  const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  const version = query.get('version');
  const label = query.get('label');
  if (version !== null && label !== null) throw new InvalidRequestError('Give either version or label, not both', { param: 'label' });
  if (version !== null) {
    if (!/^[1-9][0-9]{0,8}$/.test(version)) throw new InvalidRequestError(`Invalid version ${JSON.stringify(version.slice(0, 20))}`, { param: 'version' });
    return { version: Number(version) };
  }
  return label !== null ? { label } : {};
}
