/**
 * The Traces view's route table as the gateway declares it before the view is loaded
 * (server/lazy-routes.ts): method and path only, so this file is all of the view a sidecar holds
 * until someone opens a page. traces-view-routes.ts builds exactly these routes.
 */
import type { RouteStub } from '../server/lazy-routes.js';

export const TRACES_VIEW_ROUTES: readonly RouteStub[] = [
  { method: 'GET', path: '/ui' },
  { method: 'GET', path: '/ui/' },
  { method: 'POST', path: '/ui/sign-in' },
  { method: 'POST', path: '/ui/sign-out' },
  { method: 'GET', path: '/ui/traces' },
  { method: 'GET', path: '/ui/traces/:traceId' },
  { method: 'GET', path: '/ui/traces/:traceId/json' },
  { method: 'GET', path: '/ui/traces/:traceId/attributes' },
  { method: 'GET', path: '/ui/prompts/:id' },
  { method: 'GET', path: '/ui/assets/view.css' },
  { method: 'GET', path: '/ui/assets/view.js' },
];
