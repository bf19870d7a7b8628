import { readdirSync, statSync } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { join, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';

/**
 * Zips a directory as a Slack or Mattermost export is shipped, or with entries of one's own
 * choosing (a damaged archive), with yazl, the writer companion of the yauzl reader the import
 * uses.
 */
export async function zipEntries(file: string, entries: [name: string, data: Buffer | string][]): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of entries) zip.addBuffer(Buffer.from(data), name);
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(file));
}

export async function zipDirectory(dir: string, file: string): Promise<void> {
  const zip = new yazl.ZipFile();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else zip.addFile(path, relative(dir, path));
    }
  };
  walk(dir);
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(file));
}
