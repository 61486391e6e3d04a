import { describe, expect, it } from 'vitest';
import { parseRoutingConfig, type ConfigGroup } from '../config/routing-config.js';
import type { ConditionContext } from '../config/conditions.js';
import { orderTargets } from './order-targets.js';

const group = (config: unknown) => parseRoutingConfig(config) as ConfigGroup;
const paths = (nodes: ReadonlyArray<{ path: string }>) => nodes.map((n) => n.path);
const noContext = { metadata: {}, params: {} };

describe('orderTargets', () => {
  const three = [{ virtual_key: 'a', weight: 1 }, { virtual_key: 'b', weight: 0 }, { virtual_key: 'c', weight: 1 }];

  it('single tries the first target only', () => {
    expect(paths(orderTargets(group({ strategy: { mode: 'single' }, targets: three }), noContext))).toStrictEqual(['config.targets[0]']);
  });

  it('fallback tries all targets in order', () => {
    expect(paths(orderTargets(group({ strategy: { mode: 'fallback' }, targets: three }), noContext))).toStrictEqual([
      'config.targets[0]',
      'config.targets[1]',
      'config.targets[2]',
    ]);
  });

  it('loadbalance picks one by weight', () => {
    const lb = group({ strategy: { mode: 'loadbalance' }, targets: three });
    expect(paths(orderTargets(lb, noContext, () => 0.1))).toStrictEqual(['config.targets[0]']);
    expect(paths(orderTargets(lb, noContext, () => 0.9))).toStrictEqual(['config.targets[2]']);
  });

  const conditional = group({
    strategy: {
      mode: 'conditional',
      conditions: [
        { query: { 'metadata.plan': 'pro' }, then: 'smart' },
        { query: { 'params.model': { $regex: '^fast' } }, then: 'fast' },
      ],
      default: 'cheap',
    },
    targets: [
      { name: 'cheap', virtual_key: 'a' },
      { name: 'smart', virtual_key: 'b' },
      { name: 'fast', virtual_key: 'c' },
    ],
  });

  it.each<{ name: string; context: ConditionContext; want: string }>([
    { name: 'first match wins', context: { metadata: { plan: 'pro' }, params: { model: 'fast-1' } }, want: 'config.targets[1]' },
    { name: 'second condition', context: { metadata: {}, params: { model: 'fast-1' } }, want: 'config.targets[2]' },
    { name: 'default', context: { metadata: { plan: 'free' }, params: { model: 'x' } }, want: 'config.targets[0]' },
  ])('conditional: $name', ({ context, want }) => {
    expect(paths(orderTargets(conditional, context))).toStrictEqual([want]);
  });

  it('conditional without a match or default is a 400', () => {
    const noDefault = group({
      strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.plan': 'pro' }, then: 'a' }] },
      targets: [{ name: 'a' }],
    });
    expect(() => orderTargets(noDefault, noContext)).toThrow(expect.objectContaining({ status: 400, code: 'no_matching_condition' }));
  });
});
