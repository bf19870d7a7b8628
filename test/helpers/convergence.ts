import type { Test } from 'tap';
import { applyEvent, normalized } from './apply-events.js';
import { checkEvent } from './openapi.js';
import type { Credentials, TestServer } from './server.js';

/**
 * The reference server's convergence test, over HTTP: for each action, every viewer registers,
 * the action runs, and the events each viewer's queue received, applied to its snapshot, must
 * give exactly what a fresh POST /register returns.
 */
export const CAPABILITIES = { bulk_message_deletion: true, user_settings_object: true, empty_topic_name: true, stream_typing_notifications: true, include_deactivated_groups: true };

/** The sections the client-side applier (helpers/apply-events.ts) keeps current. */
export const SECTIONS = ['max_message_id', 'unread_msgs', 'starred_messages', 'recent_private_conversations', 'subscriptions', 'unsubscribed', 'never_subscribed', 'streams', 'realm_users', 'realm_non_active_users', 'realm_linkifiers'];

export type Viewer = Credentials & { userId: number };

export interface Harness {
  /** A request that must succeed; its body. */
  ok(c: Credentials, method: string, path: string, params?: Record<string, unknown>): Promise<any>;
  /** Runs `action` between snapshots of each viewer and checks that they converge. */
  converges(name: string, action: () => Promise<unknown>, viewers: Viewer[], options?: ConvergeOptions): Promise<unknown>;
}

export interface ConvergeOptions {
  /** /register parameters beyond the default capabilities (e.g. other client_capabilities). */
  register?: Record<string, unknown>;
  /** Further top-level /register keys to compare, beyond SECTIONS and realm_*. */
  sections?: string[];
}

export function convergenceHarness(t: Test, ts: TestServer): Harness {
  const ok = async (c: Credentials, method: string, path: string, params: Record<string, unknown> = {}) => {
    const res = await ts.as(c)(method, path, { params });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const converges = (name: string, action: () => Promise<unknown>, viewers: Viewer[], options: ConvergeOptions = {}) =>
    t.test(name, async (t) => {
      const params = { client_capabilities: CAPABILITIES, include_subscribers: true, apply_markdown: true, ...options.register };
      const wanted = [...SECTIONS, ...(options.sections ?? [])];
      const comparable = (state: Record<string, unknown>) => {
        const picked: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(state)) if (wanted.includes(k) || (k.startsWith('realm_') && k !== 'realm_presence_disabled')) picked[k] = v;
        return normalized(picked);
      };
      const register = (c: Credentials) => ok(c, 'POST', '/register', params);
      const before = await Promise.all(viewers.map(register));
      await action();
      for (const [i, viewer] of viewers.entries()) {
        const got = await ok(viewer, 'GET', '/events', { queue_id: before[i].queue_id, last_event_id: -1, dont_block: true });
        const state = structuredClone(before[i]);
        for (const event of got.events) {
          t.doesNotThrow(() => checkEvent(event), `${viewer.email}: ${event.type} ${event.op ?? ''} matches the reference schema`);
          applyEvent(state, viewer.userId, event, { userListIncomplete: (params.client_capabilities as Record<string, unknown>).user_list_incomplete === true, clientGravatar: (params as Record<string, unknown>).client_gravatar !== false });
        }
        const fresh = await register(viewer);
        t.same(comparable(state), comparable(fresh), `${viewer.email}: snapshot + ${got.events.length} events = a fresh snapshot`);
        await ok(viewer, 'DELETE', '/events', { queue_id: before[i].queue_id });
        await ok(viewer, 'DELETE', '/events', { queue_id: fresh.queue_id });
      }
    });
  return { ok, converges };
}
