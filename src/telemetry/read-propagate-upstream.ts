/** `SIDEGATE_PROPAGATE_UPSTREAM`: a sidegate setting, so a bad value fails startup naming it. */
export function readPropagateUpstream(env: NodeJS.ProcessEnv): boolean {
  const raw = env.SIDEGATE_PROPAGATE_UPSTREAM?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === 'true') return true;
  if (raw === 'false') return false;
  throw new Error(`SIDEGATE_PROPAGATE_UPSTREAM must be true or false, got ${JSON.stringify(raw)}`);
}
