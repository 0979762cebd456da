/**
 * A progress line on stderr for long work. On a terminal it redraws in place; elsewhere (CI, pipes)
 * it prints at most one line every `intervalMs`, so logs stay readable.
 */
export class Progress {
  private last = 0;
  private drawn = false;
  private readonly tty: boolean;
  private readonly intervalMs: number;
  private readonly stream: NodeJS.WriteStream;
  private readonly enabled: boolean;

  constructor(opts: { enabled?: boolean; intervalMs?: number; stream?: NodeJS.WriteStream } = {}) {
    this.stream = opts.stream ?? process.stderr;
    this.tty = Boolean(this.stream.isTTY);
    this.intervalMs = opts.intervalMs ?? (this.tty ? 100 : 10_000);
    this.enabled = opts.enabled ?? true;
  }

  /** `fraction` in [0,1] draws a bar; undefined draws only the text. */
  update(text: string, fraction?: number, force = false): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (!force && now - this.last < this.intervalMs) return;
    this.last = now;
    const bar =
      fraction === undefined ? '' : `${renderBar(fraction, 24)} ${(fraction * 100).toFixed(0).padStart(3)}% `;
    if (this.tty) {
      this.stream.write(`\r\x1b[2K${bar}${text}`);
      this.drawn = true;
    } else {
      this.stream.write(`${bar}${text}\n`);
    }
  }

  done(): void {
    if (this.drawn && this.tty) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}

export function renderBar(fraction: number, width: number): string {
  const f = Math.min(1, Math.max(0, fraction));
  const full = Math.round(f * width);
  return `[${'#'.repeat(full)}${'.'.repeat(width - full)}]`;
}
