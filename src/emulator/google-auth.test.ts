import { createSign, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from './server.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(() => emu.close());

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
function jwt(privateKey: string, claims: Record<string, unknown>): string {
  const head = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${head}.${createSign('RSA-SHA256').update(head).sign(privateKey, 'base64url')}`;
}
const keyPair = () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
};
const now = () => Math.floor(Date.now() / 1000);
const claims = (email: string) => ({ iss: email, scope: 'https://www.googleapis.com/auth/cloud-platform', aud: 'https://oauth2.googleapis.com/token', iat: now(), exp: now() + 3600 });
const token = (assertion: string) =>
  fetch(`${emu.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
  });

describe('OAuth token endpoint (JWT bearer)', () => {
  const sa = keyPair();
  const other = keyPair();
  beforeAll(() => emu.googleAuth.addServiceAccount('sa@p.iam.gserviceaccount.com', sa.publicKey));

  it('issues a token for a JWT signed with the registered key, with the scripted lifetime', async () => {
    emu.googleAuth.scriptTokenLifetimes(120);
    const res = await token(jwt(sa.privateKey, claims('sa@p.iam.gserviceaccount.com')));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; expires_in: number; token_type: string };
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 120 });
    expect(emu.googleAuth.check(body.access_token)).toBe('ok');
  });

  it.each([
    { name: 'another key', assertion: () => jwt(other.privateKey, claims('sa@p.iam.gserviceaccount.com')), want: 'Invalid JWT Signature.' },
    { name: 'an unknown account', assertion: () => jwt(sa.privateKey, claims('nobody@p.iam.gserviceaccount.com')), want: 'Invalid grant: account not found' },
    { name: 'an expired JWT', assertion: () => jwt(sa.privateKey, { ...claims('sa@p.iam.gserviceaccount.com'), iat: now() - 7200, exp: now() - 3600 }), want: expect.stringMatching(/short-lived/) },
    { name: 'no cloud-platform scope', assertion: () => jwt(sa.privateKey, { ...claims('sa@p.iam.gserviceaccount.com'), scope: 'email' }), want: 'Invalid JWT: scope.' },
  ])('refuses $name with invalid_grant', async ({ assertion, want }) => {
    const res = await token(assertion());
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: want });
  });
});

describe('metadata server', () => {
  it('needs Metadata-Flavor: Google and echoes it', async () => {
    const path = `${emu.url}/computeMetadata/v1/instance/service-accounts/default/token`;
    expect((await fetch(path)).status).toBe(403);
    const res = await fetch(`${path}?scopes=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fcloud-platform`, { headers: { 'metadata-flavor': 'Google' } });
    expect(res.headers.get('metadata-flavor')).toBe('Google');
    const body = (await res.json()) as { access_token: string };
    expect(emu.googleAuth.issuedBy('metadata').at(-1)!.token).toBe(body.access_token);
    const project = await fetch(`${emu.url}/computeMetadata/v1/project/project-id`, { headers: { 'metadata-flavor': 'Google' } });
    expect(await project.text()).toBe('sidegate-emulator');
  });
});

describe('Vertex paths', () => {
  const path = '/v1/projects/sidegate-emulator/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent';
  const post = (p: string, headers: Record<string, string>, body: unknown = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }) =>
    fetch(`${emu.url}${p}`, { method: 'POST', headers: Object.assign({ 'content-type': 'application/json' }, headers), body: JSON.stringify(body) });

  it.each<{ name: string; p: string; headers: Record<string, string> | 'token'; status: number }>([
    { name: 'no token', p: path, headers: {}, status: 401 },
    { name: 'a token it did not issue', p: path, headers: { authorization: 'Bearer ya29.forged' }, status: 401 },
    { name: 'an API key on a project path', p: path, headers: { 'x-goog-api-key': 'AIza-key' }, status: 401 },
    { name: 'an unknown project', p: path.replace('sidegate-emulator', 'other-project'), headers: 'token', status: 403 },
    { name: 'an unknown region', p: path.replace('us-central1', 'mars-north1'), headers: 'token', status: 400 },
  ])('$name → $status', async ({ p, headers, status }) => {
    const h = headers === 'token' ? { authorization: `Bearer ${emu.googleAuth.issueToken()}` } : headers;
    expect((await post(p, h)).status).toBe(status);
  });

  it('an expired token → 401 ACCESS_TOKEN_EXPIRED', async () => {
    const res = await post(path, { authorization: `Bearer ${emu.googleAuth.issueToken(-1)}` });
    expect(res.status).toBe(401);
    expect(JSON.stringify(await res.json())).toContain('ACCESS_TOKEN_EXPIRED');
  });

  it.each([
    { name: 'a content without a role', body: { contents: [{ parts: [{ text: 'Hi' }] }] }, want: /valid role: user, model/ },
    { name: 'an AI Studio file URI', body: { contents: [{ role: 'user', parts: [{ fileData: { mimeType: 'image/png', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } }] }] }, want: /not supported/ },
    { name: 'a label key with capitals', body: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], labels: { Team: 'x' } }, want: /Invalid label/ },
  ])('Vertex 400 for $name', async ({ body, want }) => {
    const res = await post(path, { authorization: `Bearer ${emu.googleAuth.issueToken()}` }, body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(want);
  });

  it('answers a valid call with labels, and records the model and rpc', async () => {
    const res = await post(path, { authorization: `Bearer ${emu.googleAuth.issueToken()}` }, { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], labels: { team: 'a' } });
    expect(res.status).toBe(200);
    expect(emu.requests.at(-1)).toMatchObject({ model: 'gemini-2.5-flash', rpc: 'generateContent', body: { labels: { team: 'a' } } });
  });
});
