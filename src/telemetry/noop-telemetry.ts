/** Telemetry that records nothing: the default in unit tests and when the SDK is disabled. */
import type { AttemptSpan, RequestSpan, Telemetry } from './telemetry.js';

const noopAttempt: AttemptSpan = {
  traceHeaders: () => ({}),
  firstChunk: () => {},
  end: () => {},
};

const noopRequest: RequestSpan = {
  sampled: () => undefined,
  startAttempt: () => noopAttempt,
  end: () => {},
};

export const noopTelemetry: Telemetry = {
  startRequest: () => noopRequest,
  shutdown: async () => {},
};
