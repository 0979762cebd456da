import type { Experience, ExperienceInput } from '../../core/experience.ts';
import type { WriteResult } from '../experience-results.ts';
import { type CheckedWrite, checkRows } from './checked-write.ts';
import type { EncodedWrite } from './encoded-write.ts';
import { WriteBehindState } from './write-behind.ts';
import { writeFacts } from './write-facts.ts';

/**
 * A write-behind group stops taking calls at this many rows. Commits of a few thousand rows cost
 * LanceDB little more per row than one huge one, and while one group commits (on LanceDB's threads)
 * the next is checked and encoded (on ours): a single unbounded group would leave nothing to overlap.
 */
export const MAX_GROUP_ROWS = 16_384;

/**
 * A group of `write` calls stops taking calls at this many rows: with calls in flight the groups
 * then come two at a time, so two appends run side by side (commit-window.ts). Appends of 2,048
 * rows each cost LanceDB little more per row than larger ones.
 */
export const WRITE_GROUP_ROWS = 2_048;

/** What forming group commits needs from the buffer. */
export interface WriteGroupsParts {
  table: string;
  /** Encode a call's checked rows as the table stores them (ExperienceStorage.encodeWrite). */
  encode(rows: readonly Experience[]): EncodedWrite;
  /**
   * Queue `job` behind every call made so far on the buffer (its serial queue); returns a promise
   * that settles when everything queued before `job` has finished and its commits have landed.
   */
  enqueue(job: () => Promise<void>): Promise<unknown>;
  /** Settles once a group may start its commit (commit-window.ts): `behind`, a write-behind group. */
  room(behind: boolean): Promise<void>;
  /**
   * Start one group's commit (group-commit.ts), which settles each call. Resolves once the append
   * is on its way; for a write-behind group, once the group has finished.
   */
  commit(calls: readonly CheckedWrite[], behind: boolean): Promise<void>;
  /** Rows at which a group of `write` calls stops taking calls (default WRITE_GROUP_ROWS). */
  writeGroupRows?: number;
  /** Rows at which a group with a write-behind call stops taking calls (default MAX_GROUP_ROWS). */
  maxGroupRows?: number;
}

/** The calls waiting for the next group commit. */
interface FormingGroup {
  calls: CheckedWrite[];
  rows: number;
  /** Holds a write-behind call (it then commits alone, and takes up to MAX_GROUP_ROWS rows). */
  behind: boolean;
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
  private forming: FormingGroup | null = null;
  /** Settles when the commits queued before the forming group have landed. */
  private ahead: Promise<unknown> = Promise.resolve();

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
    if (group !== null && group.rows >= this.capOf(group)) group = null;
    if (group === null) {
      const formed: FormingGroup = { calls: [], rows: 0, behind: false };
      group = formed;
      this.ahead = this.parts.enqueue(async () => {
        // The group takes calls until it may start: then a slow commit ahead makes it larger.
        await this.parts.room(formed.behind);
        if (this.forming === formed) this.forming = null;
        // A write-behind call that joined while the group waited: it commits alone.
        if (formed.behind) await this.parts.room(true);
        // After a failed write-behind commit nothing later may land: the table keeps a prefix of the calls.
        const failed = this.behind.failed;
        if (failed) for (const call of formed.calls) call.done(failed);
        else await this.parts.commit(formed.calls, formed.behind);
      });
      this.forming = formed;
    }
    group.rows += rows.length;
    if (behind) group.behind = true;
    const calls = group.calls;
    const committed = new Promise<WriteResult>((resolve, reject) => {
      calls.push({
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

  /** Rows at which `group` stops taking calls. */
  private capOf(group: FormingGroup): number {
    return group.behind
      ? (this.parts.maxGroupRows ?? MAX_GROUP_ROWS)
      : (this.parts.writeGroupRows ?? WRITE_GROUP_ROWS);
  }
}
