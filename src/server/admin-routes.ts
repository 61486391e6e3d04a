/**
 * Admin API for virtual keys: `POST /v1/virtual-keys`, `GET /v1/virtual-keys`,
 * `DELETE /v1/virtual-keys/{slug}`. Guarded by `SIDEGATE_ADMIN_KEY` (separate from gateway
 * keys), taken from `x-gateway-api-key` or `Authorization: Bearer`; with no admin key configured
 * the routes answer 404, as if they did not exist (DESIGN Decision 12). Answers never carry a
 * secret: the stored provider key only ever leaves toward its provider.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { canonicalHeader } from '../config/header-aliases.js';
import { AuthError, NotFoundError } from '../errors.js';
import type { VirtualKeyStore } from '../keys/virtual-key-store.js';
import type { Route } from './app.js';
import { readJsonBody } from './read-body.js';
import { sendJson } from './respond.js';

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

/** Throws 404 when admin is off, 401 for a missing or wrong key (compared as SHA-256 digests). */
export function adminKeyCheck(adminKey: string | undefined): (headers: IncomingHttpHeaders) => void {
  const want = adminKey === undefined ? undefined : digest(adminKey);
  return (headers) => {
    if (want === undefined) throw new NotFoundError('Unknown route (admin API is off: set SIDEGATE_ADMIN_KEY)', { code: 'unknown_route' });
    const bearer = canonicalHeader(headers, 'authorization')?.trim().replace(/^bearer\s+/i, '');
    const presented = canonicalHeader(headers, 'x-gateway-api-key') ?? bearer;
    if (!presented) throw new AuthError('missing admin key: send it in x-gateway-api-key or Authorization: Bearer', { code: 'missing_admin_key' });
    if (!timingSafeEqual(digest(presented), want)) {
      // A gateway key in x-gateway-api-key with the admin key in Authorization is also accepted.
      if (bearer === undefined || !timingSafeEqual(digest(bearer), want)) {
        throw new AuthError('invalid admin key', { code: 'invalid_admin_key' });
      }
    }
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
