import { reasonClass } from './step-metrics.ts';

/**
 * `reasonClass` with the answers to recent reasons kept: a run drops many rows for the same concrete
 * reason ("too few words: 2 < minWords 5"), and each class costs a handful of regular-expression
 * passes (~1.5 µs). Bounded: past `limit` distinct reasons (unique ones, such as "duplicate of
 * <id>") it starts over, so memory stays small whatever the run.
 */
export class ReasonClasses {
  private readonly known = new Map<string, string>();
  private readonly limit: number;

  constructor(limit = 1024) {
    this.limit = limit;
  }

  of(reason: string): string {
    let cls = this.known.get(reason);
    if (cls === undefined) {
      cls = reasonClass(reason);
      if (this.known.size >= this.limit) this.known.clear();
      this.known.set(reason, cls);
    }
    return cls;
  }
}
