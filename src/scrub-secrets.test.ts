import { describe, expect, it } from 'vitest';
import { looksLikeSecret, scrubErrorMessage, scrubSecrets, scrubSecretsStrict } from './scrub-secrets.js';

const GOOGLE_KEY = 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q';

describe('scrubSecrets', () => {
  it.each([
    { name: 'a known key of any shape', text: 'key abcd1234efgh is wrong', known: ['abcd1234efgh'], want: 'key [redacted] is wrong' },
    { name: 'every occurrence of a known key', text: 'k=abcd1234efgh, again abcd1234efgh', known: ['abcd1234efgh'], want: 'k=[redacted], again [redacted]' },
    { name: 'a Google API key', text: `API key not valid: ${GOOGLE_KEY}. Please pass a valid API key.`, known: [], want: 'API key not valid: [redacted]. Please pass a valid API key.' },
    { name: 'a Google key in a URL', text: `GET https://host/v1beta/models?key=${GOOGLE_KEY}&x=1`, known: [], want: 'GET https://host/v1beta/models?key=[redacted]&x=1' },
    { name: 'a masked OpenAI key', text: 'Incorrect API key provided: sk-proj-ab***yz.', known: [], want: 'Incorrect API key provided: [redacted].' },
    { name: 'a bearer credential', text: 'sent Authorization: Bearer abc.def-123', known: [], want: 'sent Authorization: [redacted]' },
    { name: 'an OAuth token', text: 'token ya29.a0AfH6SMBxyzxyzxyz expired', known: [], want: 'token [redacted] expired' },
    { name: 'a gateway key', text: 'got sg-0123456789abcdefghij', known: [], want: 'got [redacted]' },
    {
      name: 'a PEM private key, with JSON-escaped line breaks too',
      text: 'key {"private_key":"-----BEGIN PRIVATE KEY-----\\nMIIEv\\n-----END PRIVATE KEY-----\\n","x":1} and -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- end',
      known: [],
      want: 'key {"private_key":"[redacted]\\n","x":1} and [redacted] end',
    },
    { name: 'a cut-off PEM private key', text: 'x -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg', known: [], want: 'x [redacted]' },
    { name: 'short known values are not searched for', text: 'the model is slow', known: ['slow', undefined], want: 'the model is slow' },
    { name: 'ordinary upstream text with a long URL stays', text: 'quota, see https://ai.google.dev/gemini-api/docs/rate-limits.', known: [], want: 'quota, see https://ai.google.dev/gemini-api/docs/rate-limits.' },
  ])('$name', ({ text, known, want }) => {
    expect(scrubSecrets(text, known)).toBe(want);
  });

  it('the strict form also removes long unbroken tokens (logged bodies)', () => {
    expect(scrubSecretsStrict('secret 0123456789abcdef0123456789abcdef01 end')).toBe('secret [redacted] end');
  });
});

describe('looksLikeSecret', () => {
  it.each([
    { value: GOOGLE_KEY, want: true },
    { value: 'Bearer abc', want: true },
    { value: 'sk-abcdef', want: true },
    { value: '0123456789abcdef0123456789abcdef', want: true },
    { value: 'google', want: false },
    { value: 'azure', want: false },
    { value: 'my-config_1', want: false },
  ])('$value → $want', ({ value, want }) => {
    // twice: the shapes carry no state between calls
    expect(looksLikeSecret(value)).toBe(want);
    expect(looksLikeSecret(value)).toBe(want);
  });
});

describe('scrubErrorMessage', () => {
  it('scrubs in place and keeps the error object', () => {
    const err = new RangeError(`bad key ${GOOGLE_KEY}`);
    expect(scrubErrorMessage(err)).toBe(err);
    expect(err.message).toBe('bad key [redacted]');
  });
  it('leaves non-errors alone', () => {
    expect(scrubErrorMessage('x')).toBe('x');
  });
});
