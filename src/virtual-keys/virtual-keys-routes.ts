/**
 * Admin API for virtual keys: `POST /v1/virtual-keys`, `GET /v1/virtual-keys`,
 * `DELETE /v1/virtual-keys/{slug}`. Guarded by `SIDEGATE_ADMIN_KEY` (separate from gateway
 * keys), taken from `x-gateway-api-key` or `Authorization: Bearer`; with no admin key configured
 * the routes answer 404, as if they did not exist (DESIGN Decision 12). Answers never carry a
 * secret: the stored provider key only ever leaves toward its provider.
 */
import type { VirtualKeyStore } from '../keys/virtual-key-store.js';
import type { Route } from '../server/app.js';
import { adminKeyCheck } from '../server/auth.js';
import { readJsonBody } from '../server/read-body.js';
import { sendJson } from '../server/respond.js';

export interface AdminRouteDeps {
  /** `SIDEGATE_ADMIN_KEY`; undefined turns the admin routes off (404). */
  adminKey: string | undefined;
  virtualKeys: VirtualKeyStore;
}

const MAX_ADMIN_BODY = 64 * 1024;

export function createAdminRoutes(deps: AdminRouteDeps): Route[] {
  const check = adminKeyCheck(deps.adminKey);
  return [
    {
      method: 'POST',
      path: '/v1/virtual-keys',
      auth: 'self',
      handler: async (req, res) => {
        check(req.headers);
        const body = await readJsonBody(req, MAX_ADMIN_BODY);
        const info = await deps.virtualKeys.add(body);
        sendJson(res, 201, { object: 'virtual_key', ...info });
      },
    },
    {
      method: 'GET',
      path: '/v1/virtual-keys',
      auth: 'self',
      handler: (req, res) => {
        check(req.headers);
        const data = deps.virtualKeys.list().map((info) => ({ object: 'virtual_key', ...info }));
        sendJson(res, 200, { object: 'list', data, read_only: deps.virtualKeys.readOnly });
      },
    },
    {
      method: 'DELETE',
      path: '/v1/virtual-keys/:slug',
      auth: 'self',
      handler: async (req, res, params) => {
        check(req.headers);
        const slug = params.slug ?? '';
        await deps.virtualKeys.remove(slug);
        sendJson(res, 200, { object: 'virtual_key.deleted', slug, deleted: true });
      },
    },
  ];
}
