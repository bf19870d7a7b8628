import type { Credentials, TestServer } from '../../helpers/server.js';
import { createUser } from '../../helpers/server.js';
import type { SmtpSink, SunkMail } from '../../helpers/smtp-sink.js';

/**
 * What the notification tests share: people who are away (no client, no presence) with a
 * one-second batching period (their own email_notifications_batching_period_seconds), channels
 * of their own so that a case reaches nobody else, and a sentinel to tell "no email" from "not
 * yet": a direct message sent after the message under test, whose email is in the same batch
 * or a later one, so that once it arrived, an email about the message under test would have
 * too.
 */
export type Person = Credentials & { userId: number; name: string };

export interface World {
  ts: TestServer;
  sink: SmtpSink;
  person(name: string, settings?: Record<string, unknown>): Promise<Person>;
  channel(name: string, members: Person[]): Promise<number>;
  post(as: Credentials, channel: string, topic: string, content: string): Promise<number>;
  dm(as: Credentials, to: Person[], content: string): Promise<number>;
  /** Sends the person a sentinel DM and waits for its email; returns every mail they got so far. */
  sentinel(p: Person): Promise<SunkMail[]>;
  mails(p: Person): SunkMail[];
}

export function world(ts: TestServer, sink: SmtpSink): World {
  let sentinels = 0;
  const w: World = {
    ts,
    sink,
    async person(name, settings = {}) {
      const email = `${name.toLowerCase().replace(/\s+/g, '.')}@example.com`;
      const user = await createUser(ts, email, name);
      const res = await ts.as(user)('PATCH', '/settings', { params: { email_notifications_batching_period_seconds: 1, ...settings } });
      if (res.status !== 200) throw new Error(`PATCH /settings: ${JSON.stringify(res.body)}`);
      return { ...user, name };
    },
    async channel(name, members) {
      const res = await ts.request('POST', '/users/me/subscriptions', { params: { subscriptions: [{ name }], principals: members.map((m) => m.userId) } });
      if (res.status !== 200) throw new Error(`subscribe: ${JSON.stringify(res.body)}`);
      return (await ts.request('GET', '/get_stream_id', { params: { stream: name } })).body.stream_id;
    },
    async post(as, channel, topic, content) {
      const res = await ts.as(as)('POST', '/messages', { params: { type: 'stream', to: channel, topic, content } });
      if (res.status !== 200) throw new Error(`send: ${JSON.stringify(res.body)}`);
      return res.body.id;
    },
    async dm(as, to, content) {
      const res = await ts.as(as)('POST', '/messages', { params: { type: 'private', to: JSON.stringify(to.map((p) => p.userId)), content } });
      if (res.status !== 200) throw new Error(`send: ${JSON.stringify(res.body)}`);
      return res.body.id;
    },
    async sentinel(p) {
      const n = ++sentinels;
      await w.dm(ts.owner, [p], `sentinel #${n}`);
      const deadline = Date.now() + 60_000;
      while (!w.mails(p).some((m) => m.parsed.text?.includes(`sentinel #${n}`))) {
        if (Date.now() > deadline) throw new Error(`no sentinel email for ${p.email}`);
        await sink.waitFor(p.email, w.mails(p).length + 1, 60_000).catch(() => undefined);
      }
      return w.mails(p);
    },
    mails: (p) => sink.to(p.email),
  };
  return w;
}

/** The subjects of the mails, sorted. */
export const subjects = (mails: SunkMail[]) => mails.map((m) => m.parsed.subject ?? '').sort();
