// Public entry of the Gemini API emulator (gemini-wire.md §16). Loaded by main.ts with a dynamic
// import only; production code never imports it. Shares no code with providers/gemini.
//
// Default answers (no reply scripted) are deterministic; see default-answer.ts for the rules:
// `Echo: <last user text>`, function calls for declared functions the text mentions, capability
// parts for codeExecution / googleSearch / thinking / IMAGE / computerUse, tokens = ceil(chars/4).
// The fields of issue 23 (URL context, logprobs, service tiers, context caches, safety, media
// resolution, video clips, TTS audio) live in features/, one file each, with the per-model
// refusals in features/model-support.ts (docs/gemini-fields.md lists their sources).

import { startEmulator, type Emulator, type EmulatorOptions } from './server.js';

export { startEmulator, type Emulator, type EmulatorOptions } from './server.js';
export type { RecordedRequest, ScriptedReply, JsonReply, StreamReply, DropReply, DelayReply } from './script.js';
export { googleError, type GoogleErrorBody, type GoogleErrorExtra } from './errors.js';
export { DEFAULT_MODEL_IDS } from './models.js';
export type { GoogleAuthEmulator, IssuedToken } from './google-auth.js';
export { TINY_PNG_BASE64 } from './default-answer.js';

/** Parses `--port N` / `--host H` (also `--port=N`); unknown flags are an error. */
export function parseEmulatorArgs(argv: string[]): { port: number; host: string } {
  let port = 8788;
  let host = '127.0.0.1';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (name !== '--port' && name !== '--host') throw new Error(`emulator: unknown argument ${arg}`);
    if (value === undefined || value === '') throw new Error(`emulator: ${name} needs a value`);
    if (name === '--port') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`emulator: --port must be 0-65535, got ${value}`);
      port = n;
    } else {
      host = value;
    }
  }
  return { port, host };
}

/**
 * `sidegate emulator --port N --host H`: starts the emulator (defaults 8788 / 127.0.0.1), prints
 * one line with its URL, and closes on SIGINT/SIGTERM (then exits). Resolves with the running
 * emulator; its `close` also removes the signal handlers.
 */
export async function runEmulatorCli(
  argv: string[],
  extra: Omit<EmulatorOptions, 'port' | 'host'> = {},
  print: (line: string) => void = console.log,
): Promise<Emulator> {
  const { port, host } = parseEmulatorArgs(argv);
  const emulator = await startEmulator({ ...extra, port, host });
  print(`Gemini emulator listening on ${emulator.url}`);
  const closeServer = emulator.close;
  const onSignal = () => {
    void emulator.close().then(() => process.exit(0));
  };
  emulator.close = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    return closeServer();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return emulator;
}
