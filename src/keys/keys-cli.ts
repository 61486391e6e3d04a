/**
 * `sidegate keys add <slug> --provider google|openai [--custom-host URL]` (the secret is read
 * from stdin, never from argv, where `ps` and shell history would see it), `keys list`,
 * `keys rm <slug>`. Reads `SIDEGATE_DATA_DIR`, `SIDEGATE_MASTER_KEY` and
 * `SIDEGATE_VIRTUAL_KEYS_FILE` from the env it is given. Returns the exit code.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { GatewayError } from '../errors.js';
import { virtualKeyStoreFromSettings, VirtualKeyStoreError, type VirtualKeyStore } from './virtual-key-store.js';

export interface KeysCliIo {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable;
  stderr: Writable;
  env: Readonly<Record<string, string | undefined>>;
}

const USAGE = `usage:
  sidegate keys add <slug> --provider google|openai [--custom-host URL]   (API key on stdin)
  sidegate keys add <slug> --provider vertex-ai [--vertex-project-id P] [--vertex-region R]
                                    (on stdin: a service-account key file, a token, an express key, or nothing for ADC)
  sidegate keys list
  sidegate keys rm <slug>`;

/** `argv` is what follows `keys`, e.g. `['add', 'gem', '--provider', 'google']`. */
export async function runKeysCli(argv: readonly string[], io: KeysCliIo): Promise<number> {
  const fail = (message: string, code = 2): number => {
    io.stderr.write(`sidegate keys: ${message}\n`);
    return code;
  };
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout).write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }

  let parsed: { positional: string[]; flags: Map<string, string> };
  try {
    parsed = parseArgs(rest, command === 'add' ? ['--provider', '--custom-host', '--vertex-project-id', '--vertex-region'] : []);
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`);
  }
  const { positional, flags } = parsed;

  const env = (name: string) => (io.env[name]?.trim() ? io.env[name]!.trim() : undefined);
  let store: VirtualKeyStore | undefined;
  const openStore = async () =>
    (store = await virtualKeyStoreFromSettings({
      dataDir: env('SIDEGATE_DATA_DIR') ?? join(homedir(), '.sidegate'),
      masterKey: env('SIDEGATE_MASTER_KEY'),
      keysFile: env('SIDEGATE_VIRTUAL_KEYS_FILE'),
      logger: { warn: (m) => io.stderr.write(`${m}\n`) },
    }));

  try {
    switch (command) {
      case 'add': {
        if (positional.length !== 1) return fail(`add takes one slug\n${USAGE}`);
        const provider = flags.get('--provider');
        if (provider === undefined) return fail('add needs --provider google|vertex-ai|openai');
        const s = await openStore();
        if (s.readOnly) return fail('keys come from SIDEGATE_VIRTUAL_KEYS_FILE (read-only); edit that file instead', 1);
        const vertex = provider === 'vertex-ai';
        if (io.stdin.isTTY) io.stderr.write(`API key for ${positional[0]} (then Enter${vertex ? '; empty for the pod\'s ADC' : ''}): `);
        // A service-account key file spans lines: read it whole when it is piped in.
        const secret = vertex && !io.stdin.isTTY ? (await readAll(io.stdin)).trim() : await readSecret(io.stdin);
        if (secret === '' && !vertex) return fail('no API key on stdin (pipe it in: `printf %s "$KEY" | sidegate keys add ...`)');
        const info = await s.add({
          slug: positional[0],
          provider,
          custom_host: flags.get('--custom-host'),
          ...(vertex
            ? {
                vertex_project_id: flags.get('--vertex-project-id'),
                vertex_region: flags.get('--vertex-region'),
                ...(secret.startsWith('{') ? { vertex_service_account_json: secret } : secret !== '' ? { api_key: secret } : {}),
              }
            : { api_key: secret }),
        });
        io.stdout.write(`added ${info.slug} (${info.provider}${info.key_hint ? `, key ${info.key_hint}` : ''})\n`);
        return 0;
      }
      case 'list':
      case 'ls': {
        if (positional.length !== 0) return fail(`list takes no arguments\n${USAGE}`);
        const keys = (await openStore()).list();
        if (keys.length === 0) {
          io.stdout.write('no virtual keys\n');
          return 0;
        }
        const rows = [
          ['SLUG', 'PROVIDER', 'KEY', 'CUSTOM HOST', 'CREATED'],
          ...keys.map((k) => [k.slug, k.provider, k.key_hint ?? '-', k.custom_host ?? '-', k.created_at]),
        ];
        const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
        for (const row of rows) io.stdout.write(`${row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()}\n`);
        return 0;
      }
      case 'rm':
      case 'remove': {
        if (positional.length !== 1) return fail(`rm takes one slug\n${USAGE}`);
        const s = await openStore();
        if (s.readOnly) return fail('keys come from SIDEGATE_VIRTUAL_KEYS_FILE (read-only); edit that file instead', 1);
        await s.remove(positional[0]!);
        io.stdout.write(`removed ${positional[0]}\n`);
        return 0;
      }
      default:
        return fail(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
    }
  } catch (err) {
    if (err instanceof GatewayError || err instanceof VirtualKeyStoreError) return fail(err.message, 1);
    throw err;
  } finally {
    store?.close();
  }
}

function parseArgs(args: readonly string[], known: readonly string[]): { positional: string[]; flags: Map<string, string> } {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (name === '--api-key') throw new Error('the API key is read from stdin, never from the command line');
    if (!known.includes(name)) throw new Error(`unknown flag ${name}`);
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '') throw new Error(`${name} needs a value`);
    flags.set(name, value);
  }
  return { positional, flags };
}

/** Reads stdin to its end (or, on a terminal, one line) and drops the trailing newline. */
async function readAll(stdin: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
  return text;
}

async function readSecret(stdin: Readable & { isTTY?: boolean }): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    if (stdin.isTTY && text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0]!.trim();
}
