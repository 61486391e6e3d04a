// Real processes for the fault run: the built gateway (`dist/main.js serve`), the Gemini
// emulator (`dist/main.js emulator`), and a fake OTLP collector that can be up, black-holed or
// answering 500. Everything listens on 127.0.0.1 only.
import { spawn } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { SHIPPED_NODE_FLAGS } from '../../scripts/shipped-node-flags.mjs';

const ROOT = new URL('../..', import.meta.url).pathname;
const MAIN = join(ROOT, 'dist/main.js');

/** Starts `node <the flags of npm start> dist/main.js <args>` and waits for the line matching `ready`; logs go to `logFile`. */
async function startProcess(args, env, ready, logFile) {
  const child = spawn(process.execPath, [...SHIPPED_NODE_FLAGS, MAIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(logFile, { flags: 'a' });
  let output = '';
  const onData = (d) => {
    log.write(d);
    if (output.length < 100_000) output += d;
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  for (let i = 0; i < 400 && !ready.test(output); i++) {
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const match = ready.exec(output);
  if (!match) {
    child.kill('SIGKILL');
    throw new Error(`${args[0]} did not start: ${output.slice(0, 2000)}`);
  }
  return {
    child,
    pid: child.pid,
    url: match[1],
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await new Promise((r) => log.end(r));
    },
  };
}

/** The emulator on `port` (default any free one). */
export async function startEmulator(logFile, port = 0) {
  const p = await startProcess(['emulator', '--port', String(port)], {}, /listening on (http:\/\/\S+)/, logFile);
  const control = async (path, body) => {
    const res = await fetch(`${p.url}/__emulator/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    if (!res.ok) throw new Error(`emulator ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  return {
    ...p,
    /** Queues scripted replies (FIFO, one per upstream call). */
    enqueue: (replies) => control('replies', replies),
    reset: () => control('reset'),
    /** Scripts the metadata server / token endpoint (token lifetimes, failures). */
    googleAuth: (body) => control('google-auth', body),
    /** Every access token the emulator issued (the secrets check looks for each). */
    tokens: async () => ((await (await fetch(`${p.url}/__emulator/google-auth/tokens`)).json()).tokens ?? []).map((t) => t.token),
  };
}

export async function startGateway(env, logFile) {
  return startProcess(['serve', '--port', '0'], env, /listening on (http:\/\/\S+)/, logFile);
}

/**
 * A fake OTLP/HTTP collector. `mode`: `ok` (200, keeps every body for the secrets check),
 * `blackhole` (accepts, reads, never answers), `500`. `down()` gives a port nothing listens on.
 */
export async function startCollector(mode) {
  const bodies = [];
  let bytes = 0;
  const sockets = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bytes += body.length;
      if (mode === 'ok') {
        bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } else if (mode === '500') {
        res.writeHead(500).end('collector failure');
      }
      // blackhole: never answer
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    bodies,
    bytes: () => bytes,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A loopback port with nothing listening (a collector that is down). */
export async function deadPort() {
  const s = createNetServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const port = s.address().port;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}`;
}

/** Open file descriptors and resident memory of a process (Linux /proc). */
export function resources(pid) {
  const fds = readdirSync(`/proc/${pid}/fd`).length;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { fds, rssMB: kb('VmRSS') / 1024, peakMB: kb('VmHWM') / 1024 };
}

/**
 * TCP connections of a process, from /proc/net/tcp{,6}: how many accepted on `serverPort`
 * (clients) and how many open towards `upstreamPort`.
 */
export function connections(pid, serverPort, upstreamPort) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // the fd closed meanwhile
    }
  }
  let clients = 0;
  let upstream = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9]) || f[3] === '0A') continue; // 0A: LISTEN
      const local = parseInt(f[1].split(':')[1], 16);
      const remote = parseInt(f[2].split(':')[1], 16);
      if (local === serverPort) clients++;
      else if (remote === upstreamPort) upstream++;
    }
  }
  return { clients, upstream };
}
