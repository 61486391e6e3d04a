/**
 * The providers as the Responses front door uses them, per request: the same upstream
 * implementations the chat route uses (so routing, retries, fallbacks and attempt spans stay the
 * shared path's), with two differences that belong to this front door only:
 *
 * - every attempt asks for the non-strict fields (thought signatures, thinking blocks, code parts,
 *   grounding; DESIGN Decision 9): the Responses translator needs them to build its items, and
 *   decides itself what the client sees (`x-gateway-strict-compliance` still governs that);
 * - the front door's own warnings (`ignored_param:service_tier`, `omitted_media`, …) join the
 *   provider's on each attempt's outcome, so they are recorded on the attempt span like the chat
 *   route's warnings;
 * - a 400 from translating the chat request names a chat message (`messages[3].content[0]`); the
 *   client sent Responses items, so its param is renamed to the item it came from (`input[5]…`).
 */
import { InvalidRequestError } from '../errors.js';
import type { CallOutcome, Provider, ProviderCall, ProviderName } from '../providers/provider.js';

export type Providers = Readonly<Partial<Record<ProviderName, Provider>>>;

function withWarnings(outcome: CallOutcome, warnings: readonly string[]): CallOutcome {
  if (warnings.length === 0) return outcome;
  return { ...outcome, warnings: [...warnings, ...outcome.warnings.filter((w) => !warnings.includes(w))] };
}

/** `messages[3].content[0]` → `input[5].content[0]`, given the Responses param of each chat message. */
export function renameParam(err: unknown, messageParams: readonly string[]): unknown {
  if (!(err instanceof InvalidRequestError) || err.param === null) return err;
  const m = /^messages\[(\d+)\]/.exec(err.param);
  const to = m ? messageParams[Number(m[1])] : undefined;
  if (!m || to === undefined) return err;
  const param = to + err.param.slice(m[0].length);
  return new InvalidRequestError(err.message.split(err.param).join(param), { param, code: err.code });
}

function adapt(provider: Provider, warnings: readonly string[], messageParams: readonly string[]): Provider {
  const call = (c: ProviderCall): ProviderCall => ({ ...c, target: { ...c.target, strictCompliance: false } });
  const rename = (err: unknown): never => {
    throw renameParam(err, messageParams);
  };
  return {
    name: provider.name,
    telemetryName: provider.telemetryName,
    operationName: provider.operationName,
    async chat(c) {
      const result = await provider.chat(call(c)).catch(rename);
      return { ...result, outcome: withWarnings(result.outcome, warnings) };
    },
    async chatStream(c) {
      const result = await provider.chatStream(call(c)).catch(rename);
      return { status: result.status, chunks: result.chunks, outcome: () => withWarnings(result.outcome(), warnings) };
    },
  };
}

export function responsesProviders(providers: Providers, warnings: readonly string[], messageParams: readonly string[]): Providers {
  const out: Record<string, Provider | undefined> = {};
  for (const [name, provider] of Object.entries(providers)) out[name] = provider && adapt(provider, warnings, messageParams);
  return out as Providers;
}
