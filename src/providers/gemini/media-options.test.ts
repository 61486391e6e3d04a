import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors.js';
import { applyMediaOptions, convertVideoMetadata, type MediaResolutionState } from './media-options.js';

const image = { inlineData: { mimeType: 'image/png', data: 'AAAA' } };
const youtube = { fileData: { fileUri: 'https://www.youtube.com/watch?v=x' } };

describe('convertVideoMetadata', () => {
  it.each([
    { input: { start_offset: '10s', end_offset: '62.5s', fps: 2 }, want: { startOffset: '10s', endOffset: '62.5s', fps: 2 } },
    { input: { start_offset: 0, end_offset: 12.25 }, want: { startOffset: '0s', endOffset: '12.25s' } },
    { input: { fps: 24 }, want: { fps: 24 } },
    { input: {}, want: {} },
  ])('$input', ({ input, want }) => {
    expect(convertVideoMetadata(input, 'p')).toStrictEqual(want);
  });

  it.each([
    { input: { start_offset: '1m' }, param: 'p.start_offset' },
    { input: { end_offset: -1 }, param: 'p.end_offset' },
    { input: { fps: 0 }, param: 'p.fps' },
    { input: { fps: 25 }, param: 'p.fps' },
  ])('400 on $input', ({ input, param }) => {
    expect(() => convertVideoMetadata(input, 'p')).toThrow(InvalidRequestError);
    try {
      convertVideoMetadata(input, 'p');
    } catch (e) {
      expect((e as InvalidRequestError).param).toBe(param);
    }
  });
});

describe('applyMediaOptions', () => {
  it('per part on a model that takes it; auto and absent send nothing', () => {
    const state: MediaResolutionState = { perPart: true };
    expect(applyMediaOptions(image, { detail: 'low' }, 'a', state)).toStrictEqual({ ...image, mediaResolution: { level: 'MEDIA_RESOLUTION_LOW' } });
    expect(applyMediaOptions(image, { detail: 'auto' }, 'b', state)).toStrictEqual(image);
    expect(applyMediaOptions(image, {}, 'c', state)).toStrictEqual(image);
    expect(state.requestWide).toBeUndefined();
  });

  it('request-wide otherwise: agreeing details collect once, a different one is a 400', () => {
    const state: MediaResolutionState = { perPart: false };
    expect(applyMediaOptions(image, { detail: 'high' }, 'a', state)).toStrictEqual(image);
    applyMediaOptions(image, { detail: 'high' }, 'b', state);
    expect(state.requestWide).toStrictEqual({ level: 'MEDIA_RESOLUTION_HIGH', param: 'a' });
    expect(() => applyMediaOptions(image, { detail: 'low' }, 'c', state)).toThrow(/one media resolution per request/);
  });

  it('video_metadata only on video parts', () => {
    const state: MediaResolutionState = { perPart: false };
    expect(applyMediaOptions(youtube, { video_metadata: { fps: 1 } }, 'a', state)).toStrictEqual({ ...youtube, videoMetadata: { fps: 1 } });
    expect(() => applyMediaOptions(image, { video_metadata: { fps: 1 } }, 'b', state)).toThrow(/video parts only/);
  });
});
