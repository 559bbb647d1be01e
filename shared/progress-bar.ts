// A progress bar on stderr for long work (doctor, import, export, reindex). On a terminal
// it redraws one line; otherwise it prints a line per phase and every 10%, so logs stay readable.

export class ProgressBar {
  private phase = '';
  private lastPercent = -1;
  private readonly tty = Boolean(process.stderr.isTTY);

  update(phase: string, done: number, total: number): void {
    const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
    if (this.tty) {
      if (this.phase && phase !== this.phase) process.stderr.write('\n');
      const width = 30;
      const filled = Math.round((percent / 100) * width);
      process.stderr.write(`\r${phase} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% (${done}/${total})`);
    } else if (phase !== this.phase || Math.floor(percent / 10) !== Math.floor(this.lastPercent / 10)) {
      process.stderr.write(`${phase}: ${percent}% (${done}/${total})\n`);
    }
    this.phase = phase;
    this.lastPercent = percent;
  }

  done(): void {
    if (this.tty && this.phase) process.stderr.write('\n');
  }
}
