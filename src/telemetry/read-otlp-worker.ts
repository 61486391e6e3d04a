/**
 * `SIDEGATE_OTLP_WORKER`: export spans from a worker thread (`worker-span-processor.ts`). Off by
 * default: on the 2-core bench machine the worker moves 5–15 µs of CPU per request off the event
 * loop at the maximum (~20 µs before the main thread's export got cheaper) but adds 30–35 µs to the
 * process as a whole and ~17 MB of idle RSS (a second V8 heap with the exporter loaded), against
 * targets on both (docs/performance.md). A sidegate setting, so a bad value fails startup naming it.
 */
export function readOtlpWorker(env: NodeJS.ProcessEnv): boolean {
  const raw = env.SIDEGATE_OTLP_WORKER?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new Error(`SIDEGATE_OTLP_WORKER must be true or false, got ${JSON.stringify(raw)}`);
}
