/**
 * What a command writes to: its output and error streams (`CliIo`), and a progress line on stderr
 * (`Progress`). Every command and the check pool take these; they live apart from the commands so
 * that no command module has to import another for them.
 */

import { formatBytes } from "./sessionOutput";

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether `out` is a terminal (colour is used only there). */
  isTTY?: boolean;
  /** Whether `err` is a terminal (a progress line is drawn only there). */
  errIsTTY?: boolean;
  env?: NodeJS.ProcessEnv;
  /** The folder paths are shown relative to; default `process.cwd()`. */
  cwd?: string;
}

/**
 * A progress line on stderr, redrawn at most ten times a second and erased at the end. Nothing is
 * written unless stderr is a terminal.
 */
export class Progress {
  private last = 0;
  private shown = false;
  private readonly enabled: boolean;

  constructor(
    private readonly label: string,
    stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.enabled = stream.isTTY === true;
    this.stream = stream;
  }

  private readonly stream: NodeJS.WriteStream;

  update(p: { files: number; totalFiles: number; bytes: number; totalBytes: number }): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.last < 100 && p.files < p.totalFiles) return;
    this.last = now;
    this.shown = true;
    // Files listed without a stat (`find TEXT`) have no total of bytes to show.
    const bytes = p.totalBytes > 0 ? `${formatBytes(p.bytes)} of ${formatBytes(p.totalBytes)}` : `${formatBytes(p.bytes)} read`;
    this.stream.write(`\r\x1b[2K${this.label}: ${p.files}/${p.totalFiles} files, ${bytes}`);
  }

  done(): void {
    if (this.enabled && this.shown) this.stream.write("\r\x1b[2K");
  }
}
