/** The attributes naming a target in the breaker's span event and metrics (issue 24). */
import type { Attributes } from '@opentelemetry/api';
import { ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from '@opentelemetry/semantic-conventions';
import { ATTR_GATEWAY_TARGET_CREDENTIAL } from './gateway-attributes.js';
import { ATTR_GEN_AI_PROVIDER_NAME, ATTR_GEN_AI_REQUEST_MODEL } from './semconv-incubating.js';
import { serverOf } from './server-of.js';
import type { TargetHealthReading } from './telemetry.js';

export function targetAttributes(target: Omit<TargetHealthReading, 'state'>): Attributes {
  const { address, port } = serverOf(target.baseUrl);
  const attrs: Attributes = {
    [ATTR_GEN_AI_PROVIDER_NAME]: target.providerName,
    [ATTR_GEN_AI_REQUEST_MODEL]: target.model,
    [ATTR_GATEWAY_TARGET_CREDENTIAL]: target.credentialId,
  };
  if (address !== undefined) attrs[ATTR_SERVER_ADDRESS] = address;
  if (port !== undefined) attrs[ATTR_SERVER_PORT] = port;
  return attrs;
}

/** `sidegate.breaker.state` values. */
export const BREAKER_STATE_VALUE: Readonly<Record<TargetHealthReading['state'], number>> = Object.freeze({ closed: 0, half_open: 1, open: 2 });
