/** The calling thread's CPU time so far (user + system), µs: a worker's or the main thread's own share. */
export function threadCpuMicros(): number {
  const u = process.threadCpuUsage();
  return u.user + u.system;
}
