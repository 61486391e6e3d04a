/**
 * A reload that never runs twice at once and never misses a change: calls made while a run is
 * under way share one follow-up run, started when that run ends (the change that prompted them may
 * have landed after the running one read its files), and their promise settles when the follow-up
 * has run. Used by the stores that reload from watched files (virtual keys, prompts); `run` is
 * expected to handle its own errors.
 */
export function oneRunAtATime(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let followUp: Promise<void> | undefined;
  const start = (): Promise<void> => {
    if (running !== undefined) {
      const again = () => {
        followUp = undefined;
        return start();
      };
      return (followUp ??= running.then(again, again));
    }
    const current = (async () => {
      try {
        await run();
      } finally {
        running = undefined;
      }
    })();
    running = current;
    return current;
  };
  return start;
}
