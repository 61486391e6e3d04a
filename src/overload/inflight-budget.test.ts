import { describe, expect, it } from 'vitest';
import { OverloadError, PayloadTooLargeError } from '../errors.js';
import { BudgetTicket, defaultInflightBudget, InflightBudget, SMALL_RESERVATION } from './inflight-budget.js';

const MiB = 1024 * 1024;

describe('defaultInflightBudget', () => {
  it.each([
    { limit: 512 * MiB, want: 384 * MiB },
    { limit: 256 * MiB, want: 128 * MiB },
    { limit: 100 * MiB, want: 32 * MiB },
    { limit: undefined, want: 1024 * MiB },
  ])('memory limit $limit → $want', ({ limit, want }) => {
    expect(defaultInflightBudget(limit)).toBe(want);
  });
});

describe('InflightBudget', () => {
  it('admits what fits, refuses a large reservation beyond it with 503, and one that never fits with 413', () => {
    const budget = new InflightBudget(10 * MiB);
    budget.admit(8 * MiB, 'a');
    expect(() => budget.admit(4 * MiB, 'b')).toThrow(OverloadError);
    expect(() => budget.admit(11 * MiB, 'c')).toThrow(PayloadTooLargeError);
    budget.admit(SMALL_RESERVATION, 'small ones always pass');
    budget.hold(5 * MiB); // answers are counted, never refused
    expect(budget.held).toBe(8 * MiB + SMALL_RESERVATION + 5 * MiB);
    budget.release(8 * MiB + SMALL_RESERVATION + 5 * MiB);
    budget.admit(4 * MiB, 'b again');
    expect(budget.held).toBe(4 * MiB);
  });

  it('releases a ticket once, whatever it grew to', () => {
    const budget = new InflightBudget(10 * MiB);
    const ticket = new BudgetTicket(budget);
    ticket.admit(2 * MiB, 'x');
    ticket.hold(3 * MiB);
    expect(budget.held).toBe(5 * MiB);
    ticket.release();
    ticket.release();
    expect(budget.held).toBe(0);
  });
});
