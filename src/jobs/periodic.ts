/**
 * Runs `pass` now and then every `intervalMs`, never two passes at once (a pass still deleting a large backlog is
 * left to finish rather than doubled); a failed pass is handed to `onError` and the next one runs as planned.
 * Answers a function that stops the timer and waits for a pass in progress (SIGTERM). The timer does not keep
 * the process alive. The retention passes (audit events, Idempotency-Key records, finished jobs) run this way.
 */
export function startPeriodic(
  pass: () => Promise<unknown>,
  options: { intervalMs: number; onError: (err: unknown) => void },
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let busy = false;
  const tick = () => {
    if (stopped || busy) return;
    busy = true;
    running = pass()
      .catch(options.onError)
      .finally(() => {
        busy = false;
      });
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  tick();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
