/** Weighted random choice for `strategy.mode: loadbalance`. Pure but for the injected `random`. */

/**
 * Picks one item with probability weight / total. Weight 0 is never picked. Throws when no item
 * has a positive weight (the config parser already refuses such configs).
 */
export function pickWeighted<T extends { weight: number }>(items: readonly T[], random: () => number = Math.random): T {
  let total = 0;
  for (const item of items) if (item.weight > 0) total += item.weight;
  if (!(total > 0)) throw new Error('pickWeighted: no item has a positive weight');
  let point = random() * total;
  let last: T | undefined;
  for (const item of items) {
    if (item.weight <= 0) continue;
    last = item;
    if (point < item.weight) return item;
    point -= item.weight;
  }
  // Floating-point rounding can leave `point` a hair above the last weight.
  return last!;
}
