import { describe, expect, it } from 'vitest';
import { asAbortSignal, ClientAbort } from './client-signal.js';

describe('ClientAbort', () => {
  it('calls each listener once, in the order added, on the first abort only', () => {
    const abort = new ClientAbort();
    const calls: string[] = [];
    abort.addEventListener('abort', () => calls.push('a'));
    abort.addEventListener('abort', () => calls.push('b'), { once: true });
    expect(abort.aborted).toBe(false);
    abort.abort();
    abort.abort();
    expect(abort.aborted).toBe(true);
    expect(calls).toStrictEqual(['a', 'b']);
  });

  it('does not call a removed listener, nor one added after the abort (as AbortSignal does)', () => {
    const abort = new ClientAbort();
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    abort.addEventListener('abort', removed);
    abort.addEventListener('abort', () => calls.push('kept'));
    abort.removeEventListener('abort', removed);
    abort.abort();
    abort.addEventListener('abort', () => calls.push('late'));
    expect(calls).toStrictEqual(['kept']);
  });

  it('gives APIs that need one a real AbortSignal that follows it', () => {
    const abort = new ClientAbort();
    const signal = asAbortSignal(abort);
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal.aborted).toBe(false);
    abort.abort();
    expect(signal.aborted).toBe(true);

    const done = new ClientAbort();
    done.abort();
    expect(asAbortSignal(done).aborted).toBe(true);
    const native = new AbortController().signal;
    expect(asAbortSignal(native)).toBe(native);
  });
});
