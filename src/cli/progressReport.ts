// Progress of a long CLI command on stderr: a redrawn bar on a terminal, one plain line per step otherwise (logs, CI).

const BAR_WIDTH = 30;

export class ProgressReport {
  private lastLine = '';

  constructor(
    private readonly label: string,
    private readonly output: NodeJS.WriteStream = process.stderr,
  ) {}

  /** `done` of `total` units, with a short detail (position, state) after the bar. */
  update(done: number, total: number, detail: string): void {
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    if (this.output.isTTY) {
      const filled = Math.round(fraction * BAR_WIDTH);
      const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
      this.output.write(
        `\r${this.label} [${bar}] ${String(Math.floor(fraction * 100)).padStart(3)}% ${done.toLocaleString('en')}/${total.toLocaleString('en')} ${detail}\u001b[K`,
      );
      return;
    }
    const line = `${this.label}: ${Math.floor(fraction * 100)}% (${done}/${total}), ${detail}`;
    if (line !== this.lastLine) this.output.write(`${line}\n`);
    this.lastLine = line;
  }

  finish(): void {
    if (this.output.isTTY) this.output.write('\n');
  }
}
