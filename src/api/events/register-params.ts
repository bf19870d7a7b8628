/** POST /register's parameters, as its schema decodes them. */
export interface RegisterParams {
  event_types?: string[];
  fetch_event_types?: string[];
  narrow: unknown[];
  all_public_streams: boolean;
  client_capabilities: Record<string, unknown>;
  apply_markdown: boolean;
  client_gravatar: boolean;
  include_subscribers: boolean | 'partial';
  slim_presence: boolean;
  presence_history_limit_days?: number;
  queue_lifespan_secs?: number;
}

export const registerSchema = {
  properties: {
    event_types: { type: 'array', items: { type: 'string' } },
    fetch_event_types: { type: 'array', items: { type: 'string' } },
    narrow: { type: 'array', default: [] },
    all_public_streams: { type: 'boolean', default: false },
    client_capabilities: { type: 'object', default: {} },
    apply_markdown: { type: 'boolean', default: false },
    client_gravatar: { type: 'boolean', default: true },
    include_subscribers: { anyOf: [{ type: 'boolean' }, { enum: ['partial'] }], default: false },
    slim_presence: { type: 'boolean', default: false },
    presence_history_limit_days: { type: 'integer' },
    queue_lifespan_secs: { type: 'integer', minimum: 0 },
  },
};
