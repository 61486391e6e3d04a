/**
 * Keeps V8's young generation at its initial size while the gateway loads and starts, then lets
 * it grow again as usual (issue 11, idle RSS).
 *
 * Why: loading the modules (zod and its schemas, the OpenTelemetry SDK, our own code) allocates
 * ~15 MB of objects that all live for the whole process. V8 reads that high survival rate as a
 * busy program and doubles the young generation at each scavenge, to its 16 MB maximum before the
 * first request arrives; an idle sidecar then holds 11–15 MB of young-generation pages it does not
 * need until V8's memory reducer returns them about ten seconds later. With the growth factor at 1
 * during start-up the objects are promoted as before (start-up does a few more, smaller
 * scavenges), and once the server listens the factor is back to V8's default, so under traffic
 * the young generation grows to its maximum exactly as before (measured: 32 MB after 5,000
 * requests either way) and request throughput is unchanged.
 *
 * `--semi-space-growth-factor` is an ordinary V8 flag read each time the young generation grows;
 * Node 20 does not freeze flags after start-up. A process started with its own
 * `--semi-space-growth-factor` is left alone.
 */
import { setFlagsFromString } from 'node:v8';

const FLAG = '--semi-space-growth-factor';
/** V8's default (`node --v8-options`). */
const DEFAULT_FACTOR = 2;

// (V8 flags are not allowed in NODE_OPTIONS, so the command line is the only place to look.)
const chosenByUser = process.execArgv.some((arg) => arg.startsWith(FLAG) || arg.startsWith('--semi_space_growth_factor'));
let held = false;

/** Stops the young generation growing; called when this module is first imported (start.ts imports it first). */
export function holdYoungGeneration(): void {
  if (held || chosenByUser) return;
  setFlagsFromString(`${FLAG}=1`);
  held = true;
}

/** Lets it grow again, at V8's default factor; called once the gateway listens. */
export function releaseYoungGeneration(): void {
  if (!held) return;
  setFlagsFromString(`${FLAG}=${DEFAULT_FACTOR}`);
  held = false;
}

holdYoungGeneration();
