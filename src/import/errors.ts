/**
 * A malformed export: which file, which record (a table row, an entry, a line), and why. The
 * import refuses the whole archive with it, before anything is written.
 */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    readonly record: string | null,
    readonly reason: string,
  ) {
    super(`${file}${record === null ? '' : `: ${record}`}: ${reason}`);
  }
}
