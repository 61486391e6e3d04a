import { EventEmitter } from 'node:events';
import type { Server, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { DRAIN_SETTLE_MS, trackInflight } from './track-inflight.js';

/** What the tracker reads and writes of a response: its close event, headersSent, shouldKeepAlive. */
function response(headersSent = false): ServerResponse {
  return Object.assign(new EventEmitter(), { headersSent, shouldKeepAlive: true }) as unknown as ServerResponse;
}
const idleServer = { closeIdleConnections: () => {} } as unknown as Server;

describe('trackInflight', () => {
  it('counts answers until they close, whatever order they close in', () => {
    const tracker = trackInflight(() => false);
    const all = [response(), response(), response(), response(), response()];
    for (const res of all) tracker.add(res);
    expect(tracker.size).toBe(5);
    // The first, then the one moved into its place (the last), then a middle one.
    for (const [i, closed] of [[0, 4], [4, 3], [2, 2]] as const) {
      all[i]!.emit('close');
      expect(tracker.size).toBe(closed);
    }
    all[2]!.emit('close'); // a second close changes nothing
    expect(tracker.size).toBe(2);
  });

  it('on drain, every answer still open and not started closes its connection after it', async () => {
    let draining = false;
    const tracker = trackInflight(() => draining);
    const [a, b, c, d] = [response(), response(true), response(), response()];
    for (const res of [a, b, c, d]) tracker.add(res!);
    a!.emit('close'); // d now sits where a was
    draining = true;
    tracker.startDrain(idleServer);
    expect([a, b, c, d].map((res) => res!.shouldKeepAlive)).toStrictEqual([true, true, false, false]);

    const late = response();
    tracker.add(late);
    expect(late.shouldKeepAlive).toBe(false);

    let drained = false;
    void tracker.drained().then(() => (drained = true));
    for (const res of [b, c, d, late]) res!.emit('close');
    await new Promise((resolve) => setTimeout(resolve, DRAIN_SETTLE_MS + 50));
    expect(tracker.size).toBe(0);
    expect(drained).toBe(true);
  });

  it('does not resolve the drain while an answer is in flight', async () => {
    const tracker = trackInflight(() => true);
    const open = response();
    tracker.add(open);
    tracker.startDrain(idleServer);
    let drained = false;
    void tracker.drained().then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, DRAIN_SETTLE_MS + 50));
    expect(drained).toBe(false);
    open.emit('close');
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(true);
  });
});
