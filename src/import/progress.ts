/**
 * An import's progress on the command line: a bar redrawn in place for a person at a terminal,
 * plain lines (one per phase and one per tenth of it) when the output is a file or a pipe.
 */
export interface Progress {
  phase(name: string, total: number): void;
  tick(done: number): void;
  done(message: string): void;
}

export function consoleProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  const tty = stream.isTTY === true;
  let name = '';
  let total = 0;
  let lastTenth = -1;
  let lastDraw = 0;
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  return {
    phase(next, count) {
      if (tty && name) stream.write('\n');
      name = next;
      total = count;
      lastTenth = -1;
      if (!tty) stream.write(`import: ${name} (${total}) at ${elapsed()}\n`);
      else this.tick(0);
    },
    tick(done) {
      const fraction = total === 0 ? 1 : Math.min(1, done / total);
      if (tty) {
        const now = Date.now();
        if (now - lastDraw < 100 && done < total) return;
        lastDraw = now;
        const width = 30;
        const filled = Math.round(fraction * width);
        stream.write(`\r${name.padEnd(12)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(fraction * 100)).padStart(3)}% ${done}/${total} ${elapsed()}`);
      } else {
        const tenth = Math.floor(fraction * 10);
        if (tenth > lastTenth && done > 0) {
          lastTenth = tenth;
          stream.write(`import: ${name} ${done}/${total} at ${elapsed()}\n`);
        }
      }
    },
    done(message) {
      if (tty && name) stream.write('\n');
      stream.write(`${message} (${elapsed()})\n`);
    },
  };
}

/** No output (tests, and callers that report otherwise). */
export const silentProgress: Progress = { phase() {}, tick() {}, done() {} };
