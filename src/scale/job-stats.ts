import type { Queue } from 'bullmq';

/** Who finished a job and how often it was reclaimed or started: the fields the coordinator records. */
export interface JobStats {
  processedBy: string | undefined;
  stalledCounter: number;
  attemptsStarted: number;
}

/**
 * Read only a finished job's bookkeeping fields from its Redis hash (BullMQ's `pb`, `stc`, `ats`),
 * not the whole job: `queue.getJob` would fetch and parse the job's result again — for a pipeline
 * shard, megabytes of rows the coordinator already has from the completion event.
 */
export async function jobStats(queue: Queue, jobId: string): Promise<JobStats> {
  const client = await queue.client;
  const [pb, stc, ats] = await client.hmget(queue.toKey(jobId), 'pb', 'stc', 'ats');
  return {
    processedBy: pb ?? undefined,
    stalledCounter: Number.parseInt(stc ?? '0', 10) || 0,
    attemptsStarted: Number.parseInt(ats ?? '1', 10) || 1,
  };
}
