/**
 * Studio writes run one at a time in this process: a check (is the etag still current?) and the
 * write that follows it cannot interleave with another request's. Writes from other processes are
 * caught by the conditional write itself (see task-edits.ts).
 */
let tail: Promise<unknown> = Promise.resolve();

export function serialized<T>(fn: () => Promise<T>): Promise<T> {
  const run = tail.then(fn, fn);
  tail = run.catch(() => undefined);
  return run;
}
