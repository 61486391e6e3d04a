/**
 * A provider whose module is imported on its first call (DESIGN: new code loads lazily, so idle
 * memory does not grow): the gateway's registry holds this stand-in until a target needs it.
 * Concurrent first calls share one import; a failed import is retried on the next call.
 */
import type { Provider, ProviderName } from './provider.js';

export function lazyProvider(names: { name: ProviderName; telemetryName: string; operationName: string }, load: () => Promise<Provider>): Provider {
  let loading: Promise<Provider> | undefined;
  let loaded: Provider | undefined;
  const get = (): Promise<Provider> =>
    (loading ??= load().then(
      (p) => (loaded = p),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    ));
  return {
    name: names.name,
    telemetryName: names.telemetryName,
    operationName: names.operationName,
    chat: async (call) => (await get()).chat(call),
    chatStream: async (call) => (await get()).chatStream(call),
    embed: async (call) => {
      const p = await get();
      if (!p.embed) throw new Error(`${names.name} has no embeddings`);
      return p.embed(call);
    },
    listModels: async (target, signal) => {
      const p = await get();
      return p.listModels ? p.listModels(target, signal) : [];
    },
    close: async () => {
      await loaded?.close?.();
    },
  };
}
