// Where a CPU profile's time goes, grouped by package or source directory:
//   node bench/profile-summary.mjs <file.cpuprofile> [requests] [top] [--own]
// --own: each sample charged to the nearest sidegate (dist/) or bench script frame on its stack
// instead of the function it was in, so Node's and undici's work is counted under the code of ours
// that called it ("no own frame": work no function of ours is under, e.g. the HTTP parser).
// Self time of every sample is attributed to the package (node_modules/<pkg>), the sidegate source
// directory (dist/<dir>), the Node internal area (node:internal/<area>) or the V8 pseudo-node
// ((garbage collector), (program)) of the function it was in; idle time is left out. With
// `requests` (served while the profile ran) each group is also given in µs per request; `top`
// lists the heaviest functions. Profiles come from `node bench/profile.mjs`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function groupOf({ url, functionName }) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const dist = url.indexOf('/dist/');
  if (dist !== -1) {
    const rest = url.slice(dist + 1).split('/');
    return rest.length > 2 ? `sidegate ${rest[1]}/` : `sidegate ${rest[1]}`;
  }
  if (url.startsWith('node:internal/')) return `node:${url.slice('node:internal/'.length).split('/')[0].replace(/\.js$/, '')}`;
  if (url.startsWith('node:')) return url;
  if (url.includes('/bench/')) return `bench ${url.slice(url.lastIndexOf('/') + 1)}`;
  return url;
}

/** Busy time, and self time per group and per function, in µs. */
export function summarizeProfile(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0; // a sample stands for the gap to the next one
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
  }
  const groups = new Map();
  const functions = new Map();
  let busy = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    const group = groupOf(callFrame);
    if (group === '(idle)') {
      idle += us;
      continue;
    }
    busy += us;
    groups.set(group, (groups.get(group) ?? 0) + us);
    const where = callFrame.url ? ` ${callFrame.url.replace(/^.*\/(node_modules|dist)\//, '')}:${callFrame.lineNumber + 1}` : '';
    const key = `${callFrame.functionName || '(anonymous)'}${where}`;
    functions.set(key, (functions.get(key) ?? 0) + us);
  }
  const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]);
  return { busy, idle, groups: sorted(groups), functions: sorted(functions) };
}

/** Busy time per nearest own frame (sidegate's dist/ or a bench script), in µs. */
export function summarizeByOwnFrame(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const ownerOf = new Map();
  const owner = (id) => {
    if (ownerOf.has(id)) return ownerOf.get(id);
    const { functionName } = byId.get(id).callFrame;
    let found = functionName.startsWith('(') && functionName !== '(anonymous)' ? functionName : '(no own frame)';
    for (let cur = id; found === '(no own frame)' && cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur).callFrame;
      const m = /\/(?:dist|bench)\/(.*)$/.exec(f.url);
      if (m) found = `${f.functionName || '(anonymous)'} ${m[1]}:${f.lineNumber + 1}`;
    }
    ownerOf.set(id, found);
    return found;
  };
  const owners = new Map();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const key = owner(profile.samples[i]);
    if (key === '(idle)') continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    busy += dt;
    owners.set(key, (owners.get(key) ?? 0) + dt);
  }
  return { busy, owners: [...owners].sort((a, b) => b[1] - a[1]) };
}

export function printSummary(title, summary, requests, top = 20) {
  const { busy, idle, groups, functions } = summary;
  const per = (us) => (requests > 0 ? `${(us / requests).toFixed(1).padStart(7)} µs/req` : '');
  console.log(`${title}: ${(busy / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle${requests ? `, ${requests} requests → ${(busy / requests).toFixed(1)} µs/req on the profiled thread` : ''}`);
  for (const [g, us] of groups) if (us / busy >= 0.005) console.log(`${((100 * us) / busy).toFixed(1).padStart(6)} %  ${per(us)}  ${g}`);
  if (top > 0) {
    console.log(`  top ${top} functions by self time`);
    for (const [f, us] of functions.slice(0, top)) console.log(`${((100 * us) / busy).toFixed(1).padStart(6)} %  ${per(us)}  ${f}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const own = process.argv.includes('--own');
  const [file, requests, top] = process.argv.slice(2).filter((a) => a !== '--own');
  if (!file) {
    console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [requests] [top] [--own]');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const n = Number(requests ?? 0);
  if (own) {
    const { busy, owners } = summarizeByOwnFrame(profile);
    const per = (us) => (n > 0 ? `${(us / n).toFixed(1).padStart(7)} µs/req` : `${(us / 1000).toFixed(1)} ms`);
    console.log(`${file}: ${per(busy)} busy, by the nearest own frame on the stack`);
    for (const [k, us] of owners.slice(0, Number(top ?? 25))) console.log(`${per(us)}  ${k}`);
  } else {
    printSummary(file, summarizeProfile(profile), n, Number(top ?? 25));
  }
}
