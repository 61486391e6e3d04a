/**
 * `GET /v1/models` and `GET /v1/models/{id}`: the upstream's model list in OpenAI's shape, plus
 * the alias table (to-openai-models.ts). Frameworks call it at startup to check a model exists.
 *
 * The list is read with the request's own credential (the same provider / virtual-key / config
 * headers as chat). With a routing config, the config's targets are asked in order until one
 * answers (as a fallback would). Answers are cached per upstream and credential (the key is
 * hashed, never kept) for `ttlMs`, so a framework that lists models on every start costs one
 * upstream call per TTL. Not traced: it is not an LLM call.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ConfigNode, ConfigTarget } from '../config/routing-config.js';
import { InvalidRequestError, NotFoundError } from '../errors.js';
import { toOpenAIModels, type OpenAIModelList } from './to-openai-models.js';
import type { ProviderModel, Target } from '../providers/provider.js';
import { resolvePlan, type PlanEnvironment } from '../routing/resolve-plan.js';
import { readRoutingHeaders } from '../server/request-context.js';
import type { ProviderRegistry } from '../routing/route-request.js';
import type { Route } from '../server/app.js';
import { sendJson } from '../server/respond.js';

export interface ModelsRouteDeps {
  providers: ProviderRegistry;
  planEnv: PlanEnvironment;
  /** How long a model list is reused (default 5 minutes). */
  ttlMs?: number;
  /** Lists kept (default 100 upstream × credential pairs). */
  maxEntries?: number;
  now?: () => number;
}

const NEVER_ABORTED = new AbortController().signal;

interface Entry {
  expires: number;
  list: OpenAIModelList;
}

export function createModelsRoutes(deps: ModelsRouteDeps): Route[] {
  const ttlMs = deps.ttlMs ?? 5 * 60_000;
  const maxEntries = deps.maxEntries ?? 100;
  const now = deps.now ?? Date.now;
  const cache = new Map<string, Entry>();
  const inflight = new Map<string, Promise<OpenAIModelList>>();

  async function listFor(target: Target): Promise<OpenAIModelList> {
    const provider = deps.providers[target.provider];
    if (!provider?.listModels) {
      throw new InvalidRequestError(`provider ${target.provider} does not offer a model list in this gateway`, {
        code: 'unsupported_provider',
      });
    }
    const key = `${target.provider}|${target.baseUrl}|${createHash('sha256').update(target.apiKey).digest('hex')}`;
    const hit = cache.get(key);
    if (hit && hit.expires > now()) return hit.list;
    let pending = inflight.get(key);
    if (!pending) {
      pending = provider
        // Shared by concurrent callers, so never tied to one client's connection; the
        // per-attempt timeout bounds it.
        .listModels(target, NEVER_ABORTED)
        .then((models: ProviderModel[]) => {
          const list = toOpenAIModels(models);
          if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
          cache.set(key, { expires: now() + ttlMs, list });
          return list;
        })
        .finally(() => inflight.delete(key));
      inflight.set(key, pending);
    }
    return pending;
  }

  async function modelList(headers: IncomingHttpHeaders): Promise<OpenAIModelList> {
    const plan = resolvePlan(await readRoutingHeaders(headers, deps.planEnv), deps.planEnv);
    if (plan.config === undefined) return listFor(plan.resolveTarget(undefined));
    let lastError: unknown;
    for (const leaf of leaves(plan.config)) {
      try {
        return await listFor(plan.resolveTarget(leaf));
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError;
  }

  return [
    {
      method: 'GET',
      path: '/v1/models',
      handler: async (req, res) => {
        const list = await modelList(req.headers);
        sendJson(res, 200, list);
      },
    },
    {
      method: 'GET',
      path: '/v1/models/:id',
      handler: async (req, res, params) => {
        const id = params.id!;
        const list = await modelList(req.headers);
        const model = list.data.find((m) => m.id === id || `models/${m.id}` === id);
        if (!model) {
          // OpenAI's own answer for an unknown model.
          throw new NotFoundError(`The model '${id.slice(0, 200)}' does not exist`, { type: 'invalid_request_error', param: 'model', code: 'model_not_found' });
        }
        sendJson(res, 200, model);
      },
    },
  ];
}

/** The config's targets, depth first, in the order a fallback would try them. */
function leaves(node: ConfigNode): ConfigTarget[] {
  return node.kind === 'target' ? [node] : node.targets.flatMap(leaves);
}
