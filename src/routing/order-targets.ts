/**
 * Which children of a config group to try, in order: one for single / loadbalance /
 * conditional, all of them for fallback. Pure but for the injected `random`; called once per
 * group visit, so a loadbalance pick holds for that request's whole walk of the group.
 * `eligible` (given while some target's breaker is open) takes cooling-down targets out of a
 * loadbalance pick, so an open target gets no share; when none is eligible the pick is among all.
 */
import { InvalidRequestError } from '../errors.js';
import type { ConfigGroup, ConfigNode } from '../config/routing-config.js';
import type { ConditionContext } from '../config/conditions.js';
import { pickWeighted } from './loadbalance.js';

export function orderTargets(
  group: ConfigGroup,
  context: ConditionContext,
  random: () => number = Math.random,
  eligible?: (node: ConfigNode) => boolean,
): readonly ConfigNode[] {
  const strategy = group.strategy;
  switch (strategy.mode) {
    case 'single':
      return group.targets.slice(0, 1);
    case 'fallback':
      return group.targets;
    case 'loadbalance': {
      const open = eligible === undefined ? group.targets : group.targets.filter(eligible);
      return [pickWeighted(open.some((t) => t.weight > 0) ? open : group.targets, random)];
    }
    case 'conditional': {
      const match = strategy.conditions.find((c) => c.when(context));
      const index = match?.targetIndex ?? strategy.defaultIndex;
      if (index === undefined) {
        throw new InvalidRequestError('no routing condition matched the request and the config has no default', {
          param: `${group.path}.strategy.conditions`,
          code: 'no_matching_condition',
        });
      }
      return [group.targets[index]!];
    }
    default: {
      const never: never = strategy;
      throw new Error(`unhandled strategy ${JSON.stringify(never)}`);
    }
  }
}
