import type { Test } from 'tap';
import { checkEvent } from '../../helpers/openapi.js';
import type { RequestOptions, Response } from '../../helpers/server.js';

type Client = (method: string, path: string, opts?: RequestOptions) => Promise<Response>;

export interface Listener {
  /** The events queued since the last call, each checked against the reference's schema. */
  drain(t: Test): Promise<Record<string, any>[]>;
}

/**
 * An event queue registered over HTTP for one user, for tests that check which events an action
 * sends to whom. Heartbeats are left out.
 */
export async function listen(client: Client, params: Record<string, unknown> = {}): Promise<Listener> {
  const reg = await client('POST', '/register', { params: { event_types: ['stream', 'subscription', 'default_streams'], ...params } });
  if (reg.status !== 200) throw new Error(`register failed: ${JSON.stringify(reg.body)}`);
  let last = reg.body.last_event_id as number;
  const queueId = reg.body.queue_id as string;
  return {
    async drain(t) {
      const res = await client('GET', '/events', { params: { queue_id: queueId, last_event_id: last, dont_block: true } });
      if (res.status !== 200) throw new Error(`events failed: ${JSON.stringify(res.body)}`);
      const events = (res.body.events as Record<string, any>[]).filter((e) => e.type !== 'heartbeat');
      for (const e of res.body.events) last = Math.max(last, e.id);
      for (const e of events) t.doesNotThrow(() => checkEvent(e), `${e.type} ${e.op ?? ''} matches the reference schema`);
      return events.map(({ id: _id, ...rest }) => rest);
    },
  };
}
