/**
 * Small integer ids for repeated strings (group ids, tasksets) in the buffer's index. Rows of one
 * group usually arrive one after another, so the last name looked up is compared before hashing.
 */
export class NameIndex {
  readonly names: string[] = [];
  private readonly index = new Map<string, number>();
  private lastName: string | null = null;
  private lastIndex = -1;

  of(name: string): number {
    if (name === this.lastName) return this.lastIndex;
    let i = this.index.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.names.push(name);
      this.index.set(name, i);
    }
    this.lastName = name;
    this.lastIndex = i;
    return i;
  }
}
