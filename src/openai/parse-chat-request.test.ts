import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import { formatParam, parseChatRequest } from './parse-chat-request.js';

const ok = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] };

describe('parseChatRequest', () => {
  it('accepts a minimal request', () => {
    expect(parseChatRequest(ok)).toStrictEqual(ok);
  });

  it.each([
    { name: 'unknown top-level field', body: { ...ok, bogus: 1 }, param: 'bogus', message: /Unrecognized request argument supplied: bogus/ },
    { name: 'missing model', body: { messages: ok.messages }, param: 'model', message: /Missing required parameter/ },
    { name: 'empty messages', body: { model: 'm', messages: [] }, param: 'messages', message: /Invalid value/ },
    { name: 'bad role', body: { model: 'm', messages: [{ role: 'robot', content: 'x' }] }, param: 'messages[0].role', message: /Invalid value/ },
    { name: 'bad part type', body: { model: 'm', messages: [{ role: 'user', content: [{ type: 'video', video: {} }] }] }, param: 'messages[0].content[0].type', message: /Invalid value/ },
    { name: 'temperature out of range', body: { ...ok, temperature: 3 }, param: 'temperature', message: /Invalid value/ },
    { name: 'unknown nested field', body: { model: 'm', messages: [{ role: 'user', content: 'x', extra: true }] }, param: 'messages[0].extra', message: /Unrecognized field/ },
    { name: 'too many stop sequences', body: { ...ok, stop: ['a', 'b', 'c', 'd', 'e', 'f'] }, param: 'stop', message: /Invalid value/ },
  ])('refuses $name with param $param', ({ body, param, message }) => {
    let caught: unknown;
    try {
      parseChatRequest(body);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidRequestError);
    const e = caught as InvalidRequestError;
    expect(e.status).toBe(400);
    expect(e.param).toBe(param);
    expect(e.message).toMatch(message);
  });

  it('refuses a body that is not an object', () => {
    expect(() => parseChatRequest([1])).toThrow(InvalidRequestError);
  });

  it('formats zod paths like OpenAI params', () => {
    expect(formatParam(['messages', 2, 'content', 0, 'image_url'])).toBe('messages[2].content[0].image_url');
  });
});
