import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SUBDOMAIN } from '../api/realm/actions.js';
import type { ResolvedConfig } from '../lib/config.js';
import { Shard } from '../shard/shard.js';
import type { Directory } from '../store/directory.js';
import { detect, stage, type SourceKind } from './archive.js';
import { ImportError } from './errors.js';
import { convertMattermost } from './mattermost/convert.js';
import type { Progress } from './progress.js';
import { SlackClient } from './slack/api.js';
import type { SlackLeftBehind } from './slack/attach.js';
import { convertSlack } from './slack/convert.js';
import { fetchFromSlack, type SlackFetchReport } from './slack/files.js';
import { checkExport, importZulip, type ImportSummary } from './zulip/import.js';
import { ZulipExport } from './zulip/read.js';

/**
 * `stoa realm import`: one durable job per archive, described by a file in <dataDir>/imports/
 * (written atomically, fsynced) and by the checkpoint the shard keeps with the rows it writes
 * (zulip/import.ts). Running the same command again after a crash or kill -9 continues where the
 * last committed step left off. Slack and Mattermost exports are first converted into the
 * reference's format, as the reference's own importers do, and imported from there. A Slack
 * export's downloads (with a token) are cached in <job>/slack-cache/, which outlives a restarted
 * staging, so a run stopped while downloading fetches only the rest; the token itself is kept
 * nowhere.
 */
interface JobFile {
  file: string;
  subdomain: string | null;
  kind?: SourceKind;
  /** The staged (and for Slack and Mattermost, converted) export, once complete. */
  staged?: string;
  realmId?: number;
  shard?: number;
  /** A Slack export's report (what was fetched, what stayed links), for the end of a resumed run. */
  slack?: SlackReport;
  /** Whether a Slack export was converted with --slack-threads. */
  slackThreads?: boolean;
}

export interface SlackReport {
  /** Whether the conversion had a token. */
  token: boolean;
  fetched?: SlackFetchReport;
  left: SlackLeftBehind;
}

export interface ImportOptions {
  subdomain?: string;
  progress: Progress;
  /** Slack: turn threads into topics of their own (the reference's --convert-slack-threads). */
  slackThreads?: boolean;
  /** Slack: an API token, to fetch the files, custom emoji, icon and user list (never stored). */
  slackToken?: string;
  /** Slack, for tests only: the origin that plays Slack's hosts (SlackClientOptions.testOrigin). */
  slackTestOrigin?: string;
}

export interface ImportResult extends ImportSummary {
  subdomain: string;
  url: string;
  kind: SourceKind;
  slack?: SlackReport;
}

function importsDir(dataDir: string): string {
  return join(dataDir, 'imports');
}

function jobId(file: string): string {
  const full = resolve(file);
  const st = statSync(full);
  return createHash('sha256').update(`${full}\0${st.size}\0${st.mtimeMs}`).digest('hex').slice(0, 16);
}

function saveJob(path: string, job: JobFile): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, JSON.stringify(job));
  const fd = openSync(tmp, 'r');
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, path);
}

/**
 * What a rerun asks of a Slack export's conversion that the staged one lacks: a token (the files,
 * emoji, icon and user list fetched) or threads as topics. What a rerun leaves out is no change:
 * the token is stored nowhere, so a run that resumes need not be given it again.
 */
function slackWants(job: JobFile, opts: ImportOptions): SlackWant[] {
  if (!job.staged || job.kind !== 'slack') return [];
  const wants: SlackWant[] = [];
  if (opts.slackToken !== undefined && !job.slack?.token) wants.push({ began: 'a Slack token', brings: "Slack's files", drop: '--slack-token and STOA_SLACK_TOKEN', again: 'the token' });
  if (opts.slackThreads && !job.slackThreads) wants.push({ began: '--slack-threads', brings: 'threads as topics', drop: '--slack-threads', again: '--slack-threads' });
  return wants;
}

interface SlackWant {
  began: string;
  brings: string;
  drop: string;
  again: string;
}

/** A Slack export names no organization (slack/convert.ts leaves its string_id empty). */
const SLACK_SUBDOMAIN = 'imported-slack';

function checkSubdomain(file: string, directory: Directory, subdomain: string): void {
  if (!SUBDOMAIN.test(subdomain)) throw new ImportError(file, null, `"${subdomain}" is not a valid subdomain: give one with --subdomain (lower-case letters, digits, inner hyphens)`);
  if (directory.get(subdomain)) throw new ImportError(file, null, `subdomain "${subdomain}" is already in use: give another with --subdomain (an export imported before is imported again, with a Slack token say, as a new organization)`);
}

function defaultSubdomain(kind: SourceKind, source: ZulipExport): string {
  const realm = source.realm().zerver_realm[0];
  const raw = String(realm.string_id ?? realm.name ?? '').toLowerCase();
  const clean = raw.replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
  return clean || `imported-${kind}`;
}

export async function runImport(config: ResolvedConfig, directory: Directory, file: string, opts: ImportOptions): Promise<ImportResult> {
  if (!existsSync(file)) throw new ImportError(file, null, 'no such file');
  mkdirSync(importsDir(config.dataDir), { recursive: true });
  const id = jobId(file);
  const jobPath = join(importsDir(config.dataDir), `${id}.json`);
  const work = join(importsDir(config.dataDir), id);
  let job: JobFile = existsSync(jobPath) ? (JSON.parse(readFileSync(jobPath, 'utf8')) as JobFile) : { file: resolve(file), subdomain: opts.subdomain ?? null };
  if (opts.subdomain !== undefined && job.subdomain !== null && job.subdomain !== opts.subdomain && job.realmId !== undefined) {
    throw new ImportError(file, null, `an import of this file into "${job.subdomain}" is under way: run it again with that subdomain to finish it`);
  }
  // Nothing is reserved yet: this run's subdomain is the one.
  if (job.realmId === undefined && opts.subdomain !== undefined) job = { ...job, subdomain: opts.subdomain };
  const wants = slackWants(job, opts);
  if (wants.length > 0 && job.realmId !== undefined) {
    // Its rows are being written from the staged conversion, with ids reserved for it: another
    // conversion (more users, files as uploads) cannot be slid under them.
    const all = (key: keyof SlackWant) => wants.map((w) => w[key]).join(' and ');
    throw new ImportError(
      file,
      null,
      `the import of this export into "${job.subdomain}" began without ${all('began')} and has written part of the organization, so it cannot take ${all('brings')} now: finish it by running the command again without ${all('drop')}; then, for ${all('brings')}, import the export again with ${all('again')} into another --subdomain`,
    );
  }
  // Converted but nothing written: convert again as this run asks (Slack's downloads stay cached).
  if (wants.length > 0) {
    job = { file: job.file, subdomain: job.subdomain };
    saveJob(jobPath, job);
  }
  const { progress } = opts;
  try {
    // Refused before anything is unpacked or fetched where the subdomain is known already.
    if (!job.staged && job.subdomain !== null) checkSubdomain(file, directory, job.subdomain);
    if (!job.staged) {
      for (const part of ['unpacked', 'converted']) rmSync(join(work, part), { recursive: true, force: true });
      progress.phase('unpacking', 1);
      const unpacked = await stage(file, join(work, 'unpacked'));
      const { kind, root } = detect(file, unpacked);
      let staged = root;
      let slack: SlackReport | undefined;
      if (kind === 'slack') {
        if (job.subdomain === null) checkSubdomain(file, directory, SLACK_SUBDOMAIN);
        const token = opts.slackToken;
        const fetched = token ? await fetchFromSlack(root, new SlackClient({ token, testOrigin: opts.slackTestOrigin }), join(work, 'slack-cache'), progress) : undefined;
        const converted = await convertSlack(root, join(work, 'converted'), { threads: opts.slackThreads ?? false, progress, fetched });
        staged = converted.dir;
        slack = { token: token !== undefined, fetched: fetched?.report, left: converted.left };
      } else if (kind === 'mattermost') staged = await convertMattermost(root, join(work, 'converted'), { progress, team: opts.subdomain });
      progress.tick(1);
      job = { ...job, kind, staged, slack, ...(kind === 'slack' ? { slackThreads: opts.slackThreads ?? false } : {}) };
      saveJob(jobPath, job);
    }
    const source = new ZulipExport(job.staged!);
    // Everything is checked before the realm's id is taken: a malformed export leaves no trace.
    const plan = checkExport(source, progress);
    const subdomain = job.subdomain ?? defaultSubdomain(job.kind!, source);
    if (job.realmId === undefined) {
      checkSubdomain(file, directory, subdomain);
      const shardCount = Math.max(config.shards, directory.shardsInUse());
      const reserved = await directory.reserve(subdomain, shardCount);
      job = { ...job, subdomain, realmId: reserved.id, shard: reserved.shard };
      saveJob(jobPath, job);
    }
    const shard = Shard.open(job.shard!, config);
    let summary: ImportSummary | null = null;
    let name = subdomain;
    try {
      const existing = shard.realm(job.realmId!);
      if (existing) name = existing.realm.name;
      else {
        summary = await importZulip(shard, job.realmId!, subdomain, plan, progress);
        name = shard.realm(job.realmId!)!.realm.name;
      }
    } finally {
      await shard.close();
    }
    await directory.add({ id: job.realmId!, subdomain, name, shard: job.shard! });
    rmSync(work, { recursive: true, force: true });
    rmSync(jobPath, { force: true });
    const host = subdomain ? `${subdomain}.${config.externalHost}` : config.externalHost;
    const done = summary ?? { realmId: job.realmId!, users: 0, messages: 0, passwordsKept: 0, needPasswordReset: [] };
    return { ...done, subdomain, url: `${config.scheme}://${host}`, kind: job.kind!, slack: job.slack };
  } catch (err) {
    // A refused export leaves nothing: no job, no staging, no realm.
    if (err instanceof ImportError && job.realmId === undefined) {
      rmSync(work, { recursive: true, force: true });
      rmSync(jobPath, { force: true });
    }
    throw err;
  }
}
