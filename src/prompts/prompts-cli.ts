/**
 * `sidegate prompts list | show <id> | render <id>`: reads the prompts directory the gateway
 * would (`--dir`, else `SIDEGATE_PROMPTS_DIR`, else `{SIDEGATE_DATA_DIR}/prompts`), so a prompt
 * repository can be checked in CI (`prompts list` exits 1 when a file would not be served) and a
 * template tried without a running gateway. Returns the exit code.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { GatewayError } from '../errors.js';
import { buildChatRequest } from './prompt-call.js';
import { openPromptStore, type PromptSelector, type PromptStore } from './prompt-store.js';
import { renderPrompt } from './render-prompt.js';

export interface PromptsCliIo {
  stdout: Writable;
  stderr: Writable;
  env: Readonly<Record<string, string | undefined>>;
}

const USAGE = `usage:
  sidegate prompts list                                   prompts, versions, labels; files not served (exit 1 if any)
  sidegate prompts show <id> [--version N | --label L]    the template as stored
  sidegate prompts render <id> [--version N | --label L] [--var name=value]... [--vars JSON]
                                                          the chat-completions body it becomes
  every command takes --dir DIR (default: SIDEGATE_PROMPTS_DIR, else $SIDEGATE_DATA_DIR/prompts)`;

/** `argv` is what follows `prompts`, e.g. `['render', 'greet', '--var', 'name=Ada']`. */
export async function runPromptsCli(argv: readonly string[], io: PromptsCliIo): Promise<number> {
  const fail = (message: string, code = 2): number => {
    io.stderr.write(`sidegate prompts: ${message}\n`);
    return code;
  };
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout).write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  let args: ParsedArgs;
  try {
    args = parseArgs(rest);
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`);
  }
  const env = (name: string) => (io.env[name]?.trim() ? io.env[name]!.trim() : undefined);
  const dir = args.dir ?? env('SIDEGATE_PROMPTS_DIR') ?? join(env('SIDEGATE_DATA_DIR') ?? join(homedir(), '.sidegate'), 'prompts');

  let store: PromptStore | undefined;
  try {
    store = await openPromptStore({ dir, readOnly: true, logger: { warn: () => {} }, pollIntervalMs: 3_600_000 });
    switch (command) {
      case 'list': {
        if (args.positional.length > 0) return fail(`list takes no arguments\n${USAGE}`);
        const list = store.list();
        if (list.length === 0) io.stdout.write(`no prompts in ${dir}\n`);
        for (const p of list) {
          const labels = Object.entries(p.labels).map(([l, v]) => `${l}=${v}`).join(' ');
          io.stdout.write(`${p.id}\tlatest ${p.latest_version}\tversions ${p.versions.join(',')}${labels ? `\tlabels ${labels}` : ''}\n`);
        }
        for (const p of store.problems()) io.stderr.write(`not served: ${p.file}${p.path ? ` at ${p.path}` : ''}: ${p.message}\n`);
        return store.problems().length > 0 ? 1 : 0;
      }
      case 'show': {
        const id = onlyId(args);
        if (id === undefined) return fail(`show takes one prompt id\n${USAGE}`);
        io.stdout.write(`${JSON.stringify(store.resolve(id, args.selector).version.template, null, 2)}\n`);
        return 0;
      }
      case 'render': {
        const id = onlyId(args);
        if (id === undefined) return fail(`render takes one prompt id\n${USAGE}`);
        const resolved = store.resolve(id, args.selector);
        const rendered = renderPrompt(resolved.version, args.variables, resolved.resolvePartial);
        io.stdout.write(`${JSON.stringify(buildChatRequest(rendered, {}), null, 2)}\n`);
        return 0;
      }
      default:
        return fail(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
    }
  } catch (err) {
    if (err instanceof GatewayError) return fail(`${err.message}${err.param ? ` (${err.param})` : ''}`, 1);
    return fail(err instanceof Error ? err.message : String(err), 1);
  } finally {
    store?.close();
  }
}

interface ParsedArgs {
  positional: string[];
  dir: string | undefined;
  selector: PromptSelector;
  variables: Record<string, unknown>;
}

function parseArgs(argv: readonly string[]): ParsedArgs {
  // A null-prototype map: a `__proto__` in --vars is a variable name like any other.
  const out: ParsedArgs = { positional: [], dir: undefined, selector: {}, variables: Object.create(null) as Record<string, unknown> };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      out.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new Error(`${name} needs a value`);
    switch (name) {
      case '--dir':
        out.dir = value;
        break;
      case '--version':
        if (!/^[1-9][0-9]{0,8}$/.test(value)) throw new Error(`--version takes a version number, not ${JSON.stringify(value)}`);
        out.selector.version = Number(value);
        break;
      case '--label':
        out.selector.label = value;
        break;
      case '--var': {
        const at = value.indexOf('=');
        if (at <= 0) throw new Error(`--var takes name=value, not ${JSON.stringify(value)}`);
        out.variables[value.slice(0, at)] = value.slice(at + 1);
        break;
      }
      case '--vars': {
        let parsed: unknown;
        try {
          parsed = JSON.parse(value);
        } catch {
          throw new Error('--vars takes a JSON object');
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('--vars takes a JSON object');
        for (const [key, v] of Object.entries(parsed)) out.variables[key] = v;
        break;
      }
      default:
        throw new Error(`unknown flag ${name}`);
    }
  }
  if (out.selector.version !== undefined && out.selector.label !== undefined) throw new Error('give --version or --label, not both');
  return out;
}

function onlyId(args: ParsedArgs): string | undefined {
  return args.positional.length === 1 ? args.positional[0] : undefined;
}
