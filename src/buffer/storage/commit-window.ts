/**
 * How many group commits may be in flight at once (ExperienceBuffer.write). LanceDB writes one
 * append's data files on its own threads but leaves cores idle while it does: two appends of
 * 2,048 rows side by side took 0.8–1.0× the time of one append of all 100,000 rows (one after the
 * other: 1.3–1.4×; docs/performance.md). More than two gained little more on a 2-core machine.
 */
export const MAX_COMMITS_IN_FLIGHT = 2;

/** A group commit handed to LanceDB whose calls are not settled yet. */
interface Flight {
  /** Ids of the group's new rows (a later group holding one of them waits: see `holdsAny`). */
  ids: ReadonlySet<string>;
  firstSeq: number;
  /** A write-behind group: nothing may commit beside it (the table keeps a prefix of the calls). */
  behind: boolean;
  /** Settles once the group is indexed and every call settled; never rejects. */
  finished: Promise<void>;
}

/**
 * The group commits in flight, oldest first. Groups are started in call order and finish (are
 * indexed, then settled) in the same order, whatever order LanceDB lands their appends in: each
 * waits for the one before it (`previous`). A buffer call other than a write waits for all of them
 * (`drained`), so no sample, ack or fold ever sees a commit half-indexed.
 */
export class CommitWindow {
  private readonly flights: Flight[] = [];
  private last: Promise<void> = Promise.resolve();
  /** The highest append version among finished groups (to notice appends that landed out of order). */
  lastVersion = -1;
  /** Groups finished since the buffer opened (the first append after open commits alone). */
  finishedCount = 0;

  get size(): number {
    return this.flights.length;
  }

  /** Settles when the group started last has finished (then every group has). */
  get previous(): Promise<void> {
    return this.last;
  }

  /**
   * Settles once a group may start: fewer than `limit` in flight, none of them write-behind, and,
   * for a write-behind group or the first group after open, none in flight at all.
   */
  async room(behind: boolean, limit = MAX_COMMITS_IN_FLIGHT): Promise<void> {
    for (;;) {
      const alone = behind || this.finishedCount === 0 || this.flights.some((f) => f.behind);
      if (this.flights.length < (alone ? 1 : limit)) return;
      await this.flights[0]!.finished;
    }
  }

  /** Settles once every group started so far has finished. */
  drained(): Promise<void> {
    return this.last;
  }

  /** Whether a group in flight holds one of `ids`: a row written twice waits for the first to land or fail. */
  holdsAny(lists: readonly (readonly string[])[]): boolean {
    if (this.flights.length === 0) return false;
    for (const ids of lists)
      for (const id of ids) for (const f of this.flights) if (f.ids.has(id)) return true;
    return false;
  }

  /** The first seq of the oldest group in flight (or `fallback` when none is). */
  oldestFirstSeq(fallback: number): number {
    return this.flights[0]?.firstSeq ?? fallback;
  }

  /** Track a started group; `finish` runs its indexing and settling and must not reject. */
  start(group: Omit<Flight, 'finished'>, finish: Promise<void>): Promise<void> {
    const flight: Flight = {
      ...group,
      finished: finish.then(
        () => this.retire(flight),
        () => this.retire(flight),
      ),
    };
    this.flights.push(flight);
    this.last = flight.finished;
    return flight.finished;
  }

  private retire(flight: Flight): void {
    const at = this.flights.indexOf(flight);
    if (at >= 0) this.flights.splice(at, 1);
    this.finishedCount++;
  }
}
