/** Waiting for a served page's end: an abort signal (tests, embedders) or Ctrl-C / SIGTERM. */

/** Resolves when `signal` aborts, or on SIGINT / SIGTERM when there is no signal. */
export function stopRequested(signal: AbortSignal | undefined): { done: Promise<void>; dispose(): void } {
  if (signal !== undefined) {
    let onAbort = () => {};
    const done = new Promise<void>((resolve) => {
      onAbort = () => resolve();
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    return { done, dispose: () => signal.removeEventListener('abort', onAbort) };
  }
  let onSignal = () => {};
  const done = new Promise<void>((resolve) => {
    onSignal = () => resolve();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  return {
    done,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
