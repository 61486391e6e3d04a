/** `SIDEGATE_OTLP_WORKER`: a sidegate setting, so a bad value fails startup naming it. */
export function readOtlpWorker(env: NodeJS.ProcessEnv): boolean {
  const raw = env.SIDEGATE_OTLP_WORKER?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === 'true') return true;
  if (raw === 'false') return false;
  throw new Error(`SIDEGATE_OTLP_WORKER must be true or false, got ${JSON.stringify(raw)}`);
}
