/**
 * Deliverable rows bucketed by model version, for staleness control: a sample with a minimum
 * version visits only the buckets below it instead of every row. Versions only fall further
 * behind, so rows found stale are skipped for good; buckets drop rows once they are retired.
 */
export class VersionBuckets {
  private readonly byVersion = new Map<number, number[]>();

  clear(): void {
    this.byVersion.clear();
  }

  add(slot: number, version: number): void {
    let list = this.byVersion.get(version);
    if (!list) {
      list = [];
      this.byVersion.set(version, list);
    }
    list.push(slot);
  }

  /**
   * Rows below `minVersion` that may be skipped now (oldest versions first): not retired and with
   * no pending lease or skip.
   */
  stale(minVersion: number, retired: (slot: number) => boolean, free: (slot: number) => boolean): number[] {
    const out: number[] = [];
    const versions = [...this.byVersion.keys()].filter((v) => v < minVersion).sort((a, b) => a - b);
    for (const v of versions) {
      const keep: number[] = [];
      for (const s of this.byVersion.get(v)!) {
        if (retired(s)) continue;
        keep.push(s);
        if (free(s)) out.push(s);
      }
      if (keep.length > 0) this.byVersion.set(v, keep);
      else this.byVersion.delete(v);
    }
    return out;
  }
}
