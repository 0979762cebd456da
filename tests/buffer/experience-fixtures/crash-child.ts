/**
 * A replay run that the crash test kills with SIGKILL at random moments and then resumes.
 * Usage: node crash-child.ts <dbDir> <logFile> <checkpointFile> <steps>
 *
 * Per step s: write 8 experiences (ids s<s>-<k>, the same on every re-run) → log `W s`; sample 6
 * → log `D s id,id,…`; every 3rd step write the trainer checkpoint (atomic rename) → `C s`, then
 * ack(s). On start it reads the checkpoint step t, logs `R t` and calls recover(t).
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { ExperienceBuffer } from '../../../src/buffer/experience-buffer.ts';
import { exp } from './make.ts';

export const CRASH_BUFFER = {
  sampler: { type: 'version_priority', params: { decay: 1, maxUses: 2 } },
  compactEvery: 7,
  retainVersionsSeconds: 0,
  seed: 3,
} as const;

async function main(): Promise<void> {
  const [dbDir, logFile, ckptFile, stepsArg] = process.argv.slice(2) as [string, string, string, string];
  const steps = Number(stepsArg);
  const log = (line: string) => appendFileSync(logFile, `${line}\n`);
  const buf = await ExperienceBuffer.open(dbDir, CRASH_BUFFER);
  const resumeFrom = existsSync(ckptFile)
    ? (JSON.parse(readFileSync(ckptFile, 'utf8')) as { step: number }).step
    : -1;
  log(`R ${resumeFrom}`);
  await buf.recover(resumeFrom < 0 ? null : resumeFrom);
  for (let s = resumeFrom + 1; s <= steps; s++) {
    await buf.write(
      Array.from({ length: 8 }, (_, k) => exp(`s${s}-${k}`, { modelVersion: s, exploreStep: s })),
    );
    log(`W ${s}`);
    const batch = await buf.sample(6, { step: s });
    log(`D ${s} ${batch.experiences.map((e) => e.id).join(',')}`);
    await new Promise((r) => setTimeout(r, s % 3));
    if (s % 3 === 0 || s === steps) {
      writeFileSync(`${ckptFile}.tmp`, JSON.stringify({ step: s }));
      renameSync(`${ckptFile}.tmp`, ckptFile);
      log(`C ${s}`);
      // The moment between a durable checkpoint and its ack (a real trainer uploads, syncs…).
      await new Promise((r) => setTimeout(r, 15));
      await buf.ack(s);
      log(`A ${s}`);
    }
  }
  await buf.close();
  log('DONE');
}

if (process.argv[1]?.endsWith('crash-child.ts')) await main();
