import { describe, expect, it } from 'vitest';
import { vertexCredentialSource } from './vertex-credential.js';

const API_KEY = `AIza${'x'.repeat(35)}`;
const SA = '{"type":"service_account","client_email":"a@b.iam.gserviceaccount.com"}';

describe('vertexCredentialSource (the credential chain, issue 22 item 2)', () => {
  it.each([
    { name: 'a raw access token', apiKey: 'ya29.a0AfB_token', vertex: { region: 'global' }, want: { kind: 'access-token', token: 'ya29.a0AfB_token' } },
    { name: 'a token wins over a service account', apiKey: 'ya29.t', vertex: { region: 'global', serviceAccountJson: SA }, want: { kind: 'access-token', token: 'ya29.t' } },
    { name: 'a Google API key is express mode', apiKey: API_KEY, vertex: { region: 'global' }, want: { kind: 'express-api-key', apiKey: API_KEY } },
    { name: 'an express key wins over a service account', apiKey: API_KEY, vertex: { region: 'global', serviceAccountJson: SA }, want: { kind: 'express-api-key', apiKey: API_KEY } },
    { name: 'AIza of the wrong length is a token', apiKey: 'AIzaShort', vertex: { region: 'global' }, want: { kind: 'access-token', token: 'AIzaShort' } },
    { name: 'a service-account key', apiKey: '', vertex: { region: 'us-central1', serviceAccountJson: SA }, want: { kind: 'service-account', json: SA } },
    { name: 'nothing: application default credentials', apiKey: '', vertex: { region: 'us-central1' }, want: { kind: 'application-default' } },
    { name: 'an empty service-account field counts as none', apiKey: '', vertex: { region: 'us-central1', serviceAccountJson: '' }, want: { kind: 'application-default' } },
  ])('$name', ({ apiKey, vertex, want }) => {
    expect(vertexCredentialSource({ apiKey, vertex })).toStrictEqual(want);
  });
});
