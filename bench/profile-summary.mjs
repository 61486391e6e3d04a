// Where a CPU profile's time goes, grouped by package or source directory:
//   node bench/profile-summary.mjs <file.cpuprofile> [requests] [top]
// Self time of every sample is attributed to the package (node_modules/<pkg>), the sidegate source
// directory (dist/<dir>), the Node internal module (node:internal/<area>) or the V8 pseudo-node
// ((garbage collector), (program), (idle)) of the function it was in. With `requests` (served while
// the profile ran) each group is also shown in µs per request; `top` lists the heaviest functions.
// Profiles come from `npm run bench -- --profile DIR`.
import { readFileSync } from 'node:fs';

const [file, requestsArg, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [requests] [top]');
  process.exit(2);
}
const requests = Number(requestsArg ?? 0);
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));

function groupOf(callFrame) {
  const { url, functionName } = callFrame;
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
  if (url.startsWith('node:internal/')) {
    const rest = url.slice('node:internal/'.length).split('/');
    return `node:${rest[0].replace(/\.js$/, '')}`;
  }
  if (url.startsWith('node:')) return url;
  if (url.includes('/bench/')) return `bench ${url.slice(url.lastIndexOf('/') + 1)}`;
  return url;
}

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  const dt = deltas[i + 1] ?? 0; // a sample's time is the gap to the next one
  selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
}
const groups = new Map();
const fns = new Map();
let total = 0;
let idle = 0;
for (const [id, us] of selfUs) {
  const node = byId.get(id);
  const g = groupOf(node.callFrame);
  if (g === '(idle)') {
    idle += us;
    continue;
  }
  total += us;
  groups.set(g, (groups.get(g) ?? 0) + us);
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(node_modules|dist)\//, '')}:${lineNumber + 1}` : ''}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
}
const fmt = (us) => (requests > 0 ? `${(us / requests).toFixed(1).padStart(8)} µs/req` : '');
console.log(`${file}: ${(total / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle${requests ? `, ${requests} requests → ${(total / requests).toFixed(1)} µs/req` : ''}`);
for (const [g, us] of [...groups].sort((a, b) => b[1] - a[1])) {
  if (us / total < 0.005) continue;
  console.log(`${((100 * us) / total).toFixed(1).padStart(6)} %  ${fmt(us)}  ${g}`);
}
if (top > 0) {
  console.log(`\ntop ${top} functions by self time`);
  for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(6)} %  ${fmt(us)}  ${k}`);
  }
}
