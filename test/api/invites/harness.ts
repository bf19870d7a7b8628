import { request as httpRequest } from 'node:http';
import { SMTPServer } from 'smtp-server';
import { doCreateUser } from '../../../src/api/users/actions.js';
import type { Config } from '../../../src/lib/config.js';
import type { RealmState } from '../../../src/model/realm-state.js';
import { ROLE, type GroupRecord } from '../../../src/model/types.js';
import type { Shard } from '../../../src/shard/shard.js';
import type { Response } from '../../helpers/server.js';
import { startWorld, type Person, type World, type WorldOptions } from '../streams/world.js';

/**
 * The invitation tests' world: the streams tests' two realms (owner, admin, hamlet, othello,
 * polonius the guest, hamlet's bot) plus, in the root realm, shiva the moderator and two user
 * groups made before the server starts (no API makes groups yet): "team", which members may add
 * to, and "closed", which nobody but an owner may. With `smtp`, a real SMTP listener on
 * localhost receives the server's mail.
 */
export interface Mail {
  from: string;
  to: string[];
  raw: string;
  /** The raw message with quoted-printable soft line breaks joined. */
  text: string;
}

/** A real SMTP server on an ephemeral localhost port that keeps what it receives. */
export class Inbox {
  readonly mails: Mail[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];
  private server: SMTPServer;
  port = 0;

  constructor(opts: { reject?: () => boolean } = {}) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo: (address, _session, callback) => {
        if (opts.reject?.()) return callback(new Error('mailbox unavailable'));
        callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          this.mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            text: raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='),
          });
          for (const w of this.waiters.filter((w) => this.mails.length >= w.count)) w.resolve();
          callback();
        });
      },
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as { port: number }).port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The mails to an address. */
  to(address: string): Mail[] {
    return this.mails.filter((m) => m.to.includes(address));
  }

  /** The invitation link in a mail. */
  static link(mail: Mail): string {
    const found = /https?:\/\/[^\s"<>]+\/join\/[a-z0-9]+\//.exec(mail.text);
    if (!found) throw new Error(`no invitation link in mail: ${mail.text.slice(0, 500)}`);
    return found[0];
  }
}

export interface InviteWorld extends World {
  shiva: Person;
  /** A group members may add to, and one only owners may (can_manage_all_groups). */
  teamGroupId: number;
  closedGroupId: number;
  /** A deactivated group members could add to. */
  oldGroupId: number;
  inbox: Inbox | null;
}

async function prepare(shard: Shard, realm: RealmState, ids: { shiva?: Person; team?: number; closed?: number; old?: number }): Promise<void> {
  const shiva = await doCreateUser(shard, realm, { email: 'shiva@example.com', fullName: 'shiva', role: ROLE.moderator });
  ids.shiva = { email: shiva.email, apiKey: shiva.apiKey, userId: shiva.id };
  const group = (name: string, adders: string): GroupRecord => {
    const nobody = realm.systemGroupId('role:nobody');
    const adderId = realm.systemGroupId(adders);
    return {
      id: shard.allocate(batch, 'group'),
      name,
      description: `The ${name} group`,
      isSystemGroup: false,
      members: [],
      subgroups: [],
      dateCreated: Math.floor(Date.now() / 1000),
      creatorId: null,
      deactivated: false,
      settings: {
        can_add_members_group: adderId,
        can_join_group: nobody,
        can_leave_group: realm.systemGroupId('role:everyone'),
        can_manage_group: nobody,
        can_mention_group: realm.systemGroupId('role:everyone'),
        can_remove_members_group: nobody,
      },
    };
  };
  const batch = shard.batch();
  const old = { ...group('old', 'role:members'), deactivated: true };
  for (const [key, g] of [['team', group('team', 'role:members')], ['closed', group('closed', 'role:nobody')], ['old', old]] as const) {
    realm.setGroup(g);
    batch.put(shard.store.groups, [realm.id, g.id], g);
    ids[key] = g.id;
  }
  await batch.commit();
}

export async function startInviteWorld(t: { teardown(fn: () => unknown): void }, opts: WorldOptions & { smtp?: boolean; config?: Partial<Config> } = {}): Promise<InviteWorld> {
  let inbox: Inbox | null = null;
  let config = opts.config ?? {};
  if (opts.smtp) {
    inbox = new Inbox();
    await inbox.start();
    t.teardown(() => inbox!.close());
    config = { ...config, email: { from: 'Stoa Test <noreply@stoa.test>', smtp: { host: '127.0.0.1', port: inbox.port } } };
  }
  const ids: { shiva?: Person; team?: number; closed?: number; old?: number } = {};
  const world = await startWorld(t, { ...opts, config, prepare: (shard, realm) => prepare(shard, realm, ids) });
  return { ...world, shiva: ids.shiva!, teamGroupId: ids.team!, closedGroupId: ids.closed!, oldGroupId: ids.old!, inbox };
}

export interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  html: string;
}

/** A page outside /api/v1 (the sign-up page), as a browser without scripts fetches it. */
export function page(url: string, form?: Record<string, string>): Promise<Page> {
  const target = new URL(url);
  const body = form ? Buffer.from(new URLSearchParams(form).toString()) : undefined;
  const headers: Record<string, string> = { host: target.host };
  if (body) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    // A connection per request, as helpers/server.ts: no kept-alive socket to race the server's close.
    const req = httpRequest({ host: '127.0.0.1', port: target.port, method: form ? 'POST' : 'GET', path: target.pathname + target.search, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, html: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The text of the element with this id, tags stripped. */
export function byId(html: string, id: string): string | null {
  const m = new RegExp(`<(\\w+)[^>]*\\bid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  return m ? m[2].replace(/<[^>]+>/g, '').trim() : null;
}

/** The problem a link page reports (data-problem), if any. */
export function problemOf(html: string): string | null {
  return /data-problem="(\w+)"/.exec(html)?.[1] ?? null;
}

/** A success answer's body, failing loudly otherwise. */
export function ok(res: Response): any {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Signs up through an invitation link; returns the welcome page. */
export async function join(link: string, email: string, fullName: string, password = 'a-long-password-1'): Promise<Page> {
  return page(link, { email, full_name: fullName, password });
}
