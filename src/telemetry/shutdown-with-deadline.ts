/** Shuts the SDK parts down together, bounded by a deadline: a dead collector must not hold up exit. */
export async function shutdownWithDeadline(parts: ReadonlyArray<{ shutdown(): Promise<void> }>, deadlineMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
    timer.unref();
  });
  await Promise.race([Promise.allSettled(parts.map((part) => part.shutdown())), deadline]);
  clearTimeout(timer);
}
