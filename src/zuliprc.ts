import { readFileSync, statSync, writeFileSync } from 'node:fs';
import type { ResolvedConfig } from './lib/config.js';
import { zuliprcPath, type Directory } from './store/directory.js';

/**
 * The zuliprc files the server writes for each realm's owner (`<dataDir>/zuliprc` for the root
 * realm, `<dataDir>/<subdomain>.zuliprc`). Kept apart from realms.ts, which loads every action:
 * a start that only checks these files must not pay for that.
 */
export { zuliprcPath };

/** The URL a realm answers at, as the shards compute it (Shard.realmUrl). */
export function realmUrl(config: Pick<ResolvedConfig, 'scheme' | 'externalHost'>, subdomain: string): string {
  return `${config.scheme}://${subdomain ? `${subdomain}.` : ''}${config.externalHost}`;
}

/**
 * The zuliprc files of the data directory whose `site` is not where their realm answers now
 * (`externalHost`, `scheme` or the port changed since they were written): their `site` line is
 * rewritten, since a client reading one would reach a host that no longer answers. Returns one
 * line per file rewritten, for the start to print.
 */
export function refreshZuliprcSites(config: ResolvedConfig, directory: Directory): string[] {
  const notices: string[] = [];
  for (const entry of directory.list()) {
    const path = zuliprcPath(config.dataDir, entry.subdomain);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    const site = /^site\s*=\s*(.*?)\s*$/m.exec(text)?.[1];
    const url = realmUrl(config, entry.subdomain);
    if (site === undefined || site === url) continue;
    writeFileSync(path, text.replace(/^site\s*=.*$/m, `site=${url}`), { mode: statSync(path).mode & 0o777 });
    notices.push(`${path}: site changed from ${site} to ${url} (externalHost, scheme or port changed); copies of this file elsewhere still name the old one`);
  }
  return notices;
}
