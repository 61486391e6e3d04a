import { describe, expect, it } from 'vitest';
import { blobBytes, isBlobRef, parseJsonBody, serializedLength, serializeJsonBody } from './inline-blobs.js';

const big = (n: number, ch = 'A') => ch.repeat(n);

function body(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

describe('parseJsonBody', () => {
  it('parses small bodies as plain JSON', () => {
    const parsed = parseJsonBody(body({ a: 'data:image/png;base64,AAAA' }));
    expect(parsed.value).toStrictEqual({ a: 'data:image/png;base64,AAAA' });
    expect(parsed.blobCount).toBe(0);
  });

  it('keeps a large base64 data-URI payload by reference and splices it back byte for byte', () => {
    const payload = big(2 * 1024 * 1024 - 2) + '==';
    const url = `data:image/png;base64,${payload}`;
    const request = { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }, { type: 'text', text: 'hi "there"' }] }] };
    const parsed = parseJsonBody(body(request));
    expect(parsed.blobCount).toBe(1);
    const seen = (parsed.value as any).messages[0].content[0].image_url.url as string;
    expect(seen.startsWith('data:image/png;base64,')).toBe(true);
    const ref = seen.slice('data:image/png;base64,'.length);
    expect(isBlobRef(ref)).toBe(true);
    expect(ref.length).toBeLessThan(32);
    expect(Buffer.concat(blobBytes(ref)!).toString('latin1')).toBe(payload);
    expect((parsed.value as any).messages[0].content[1].text).toBe('hi "there"');

    const upstream = { contents: [{ parts: [{ inlineData: { mimeType: 'image/png', data: ref } }] }] };
    const out = serializeJsonBody(upstream);
    expect(Array.isArray(out)).toBe(true);
    const joined = Buffer.concat(out as Buffer[]);
    expect(JSON.parse(joined.toString())).toStrictEqual({ contents: [{ parts: [{ inlineData: { mimeType: 'image/png', data: payload } }] }] });
    expect(serializedLength(out)).toBe(joined.length);

    parsed.release();
    expect(blobBytes(ref)).toBeUndefined();
    expect(() => serializeJsonBody(upstream)).toThrow(/released/);
  });

  it.each([
    { name: 'not a data URI', value: { t: big(2 * 1024 * 1024) } },
    { name: 'not base64 (spaces)', value: { u: `data:image/png;base64,${big(1024 * 1024)} ${big(1024 * 1024)}` } },
    { name: 'not marked base64', value: { u: `data:text/plain,${big(2 * 1024 * 1024)}` } },
    { name: 'escaped content', value: { u: `data:image/png;base64,${big(1024 * 1024)}"${big(1024 * 1024)}` } },
  ])('leaves a large string alone when $name', ({ value }) => {
    const parsed = parseJsonBody(body(value));
    expect(parsed.blobCount).toBe(0);
    expect(parsed.value).toStrictEqual(value);
  });

  it('handles several payloads and strings with escaped quotes between them', () => {
    const a = big(300 * 1024, 'a');
    const b = big(800 * 1024, 'b');
    const value = { x: `data:audio/wav;base64,${a}`, note: 'say \\"hi\\"', y: [`data:application/pdf;base64,${b}`] };
    const parsed = parseJsonBody(body(value));
    expect(parsed.blobCount).toBe(2);
    const out = serializeJsonBody(parsed.value);
    expect(JSON.parse(Buffer.concat(out as Buffer[]).toString())).toStrictEqual(value);
    parsed.release();
  });

  it('reports malformed JSON the way JSON.parse does', () => {
    const text = Buffer.from(`{"u": "data:image/png;base64,${big(2 * 1024 * 1024)}", }`);
    expect(() => parseJsonBody(text)).toThrow(SyntaxError);
  });
});

describe('parseJsonBody on a body held as the chunks it arrived in', () => {
  /** Splits at pseudo-random points (fixed seed) into pieces of 1 byte to 64 KiB. */
  function chunked(buf: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let seed = 7;
    for (let at = 0; at < buf.length; ) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const size = seed % 3 === 0 ? 1 + (seed % 7) : 1 + (seed % 65536);
      out.push(buf.subarray(at, at + size));
      at += size;
    }
    return out;
  }

  it('gives the same value and the same upstream bytes as a single buffer', () => {
    const payload = big(700 * 1024, 'Q') + 'w==';
    const value = {
      note: 'héllo — ünïcödé "quoted" \\ back\\slash',
      a: `data:image/webp;base64,${payload}`,
      filler: 'x'.repeat(400 * 1024),
      b: [`data:video/mp4;base64,${big(300 * 1024, 'z')}`],
    };
    const whole = body(value);
    const pieces = chunked(whole);
    expect(pieces.length).toBeGreaterThan(10);
    const fromChunks = parseJsonBody(pieces);
    const fromWhole = parseJsonBody(whole);
    expect(fromChunks.blobCount).toBe(2);
    const upstream = (p: typeof fromChunks) => Buffer.concat(serializeJsonBody(p.value) as Buffer[]).toString();
    expect(upstream(fromChunks)).toBe(upstream(fromWhole));
    expect(JSON.parse(upstream(fromChunks))).toStrictEqual(value);
    fromChunks.release();
    fromWhole.release();
  });

  it('parses a small body given in pieces, including a character split across them', () => {
    const whole = Buffer.from(JSON.stringify({ t: 'ünïcödé ✓' }));
    const pieces = [whole.subarray(0, 9), whole.subarray(9, 10), whole.subarray(10)];
    expect(parseJsonBody(pieces).value).toStrictEqual({ t: 'ünïcödé ✓' });
  });
});
