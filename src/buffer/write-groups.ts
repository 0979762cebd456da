import type { Experience, ExperienceInput } from '../core/experience.ts';
import { type CheckedWrite, checkRows } from './checked-write.ts';
import type { EncodedWrite } from './encoded-write.ts';
import type { WriteResult } from './experience-results.ts';
import { WriteBehindState } from './write-behind.ts';
import { writeFacts } from './write-facts.ts';

/**
 * A group stops taking calls at this many rows. Commits of a few thousand rows cost LanceDB little
 * more per row than one huge one, and while one group commits (on LanceDB's threads) the next is
 * checked and encoded (on ours): a single unbounded group would leave nothing to overlap.
 */
export const MAX_GROUP_ROWS = 16_384;

/** What forming group commits needs from the buffer. */
export interface WriteGroupsParts {
  table: string;
  /** Encode a call's checked rows as the table stores them (ExperienceStorage.encodeWrite). */
  encode(rows: readonly Experience[]): EncodedWrite;
  /**
   * Queue `job` behind every call made so far on the buffer (its serial queue); returns a promise
   * that settles when everything queued before `job` has finished.
   */
  enqueue(job: () => Promise<void>): Promise<unknown>;
  /** Commit one group's calls (group-commit.ts); settles each call. */
  commit(calls: readonly CheckedWrite[]): Promise<void>;
  /** Rows at which a group stops taking calls (default MAX_GROUP_ROWS). */
  maxGroupRows?: number;
}

/**
 * Forms the group commits of `ExperienceBuffer.write`/`writeBehind`: a call joins the group that
 * waits for the commit in flight, or starts one. Each call's rows are checked and encoded when the
 * call is made (a bad row fails that call at once, alone).
 */
export class WriteGroups {
  readonly behind: WriteBehindState;
  private readonly parts: WriteGroupsParts;
  /** The calls waiting for the next group commit; null once it started or a non-write call queued behind it. */
  private forming: CheckedWrite[] | null = null;
  /** Settles when the commits queued before the forming group have landed. */
  private ahead: Promise<unknown> = Promise.resolve();
  private formingRows = 0;

  constructor(parts: WriteGroupsParts) {
    this.parts = parts;
    this.behind = new WriteBehindState(parts.table);
  }

  /** Another call was queued: writes made after it must not join a group queued before it. */
  cut(): void {
    this.forming = null;
  }

  /**
   * Add a call. `committed` settles after the commit holding its rows; `ahead` once the commits
   * queued before its group landed. `behind`: a write-behind call (its failure fails later calls).
   */
  add(
    exps: readonly ExperienceInput[],
    behind: boolean,
  ): { committed: Promise<WriteResult>; ahead: Promise<unknown> } {
    this.behind.check();
    const rows = checkRows(exps, this.parts.table);
    const encoded = this.parts.encode(rows);
    // From here on the call keeps columns, not the checked row objects (write-facts.ts).
    const facts = writeFacts(rows);
    let group = this.forming;
    if (group !== null && this.formingRows >= (this.parts.maxGroupRows ?? MAX_GROUP_ROWS)) group = null;
    if (group === null) {
      const calls: CheckedWrite[] = [];
      group = calls;
      this.ahead = this.parts.enqueue(async () => {
        if (this.forming === calls) this.forming = null;
        // After a failed write-behind commit nothing later may land: the table keeps a prefix of the calls.
        const failed = this.behind.failed;
        if (failed) for (const call of calls) call.done(failed);
        else await this.parts.commit(calls);
      });
      this.forming = calls;
      this.formingRows = 0;
    }
    this.formingRows += rows.length;
    const committed = new Promise<WriteResult>((resolve, reject) => {
      group.push({
        facts,
        encoded,
        done: (r) => {
          if (!(r instanceof Error)) return resolve(r);
          if (behind) this.behind.fail(r);
          reject(r);
        },
      });
    });
    if (behind) this.behind.track(rows.length, committed);
    return { committed, ahead: this.ahead };
  }
}
