import { closeSync, openSync, writeSync } from 'node:fs';

/** Overwrites `pages` 4 KiB pages of `file` from `firstPage` on with noise, the same on every run. */
export function garble(file: string, firstPage: number, pages: number): void {
  const fd = openSync(file, 'r+');
  try {
    let x = 12345;
    const page = Buffer.alloc(4096);
    for (let p = firstPage; p < firstPage + pages; p++) {
      for (let i = 0; i < page.length; i++) page[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
      writeSync(fd, page, 0, page.length, p * 4096);
    }
  } finally {
    closeSync(fd);
  }
}
