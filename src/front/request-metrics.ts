import type { Metric, Registry } from 'prom-client';

/**
 * The requests' count by method, route template and status, and their latency histogram by
 * method and route, as /metrics shows them (`stoa_http_requests_total`,
 * `stoa_http_request_duration_seconds`).
 *
 * Counted here, not in prom-client's Counter and Histogram: those hash a series' labels again at
 * every `inc` and `observe`, even through `labels()`, which cost about 1 us and a few objects of
 * garbage per request on the main thread (4 % of its allocation under P1, bench/RESULTS.md). Here a
 * request finds its series by Map lookups on strings it already has (the route table's template,
 * the method) and adds to numbers. prom-client still writes the text: at a scrape the registry
 * asks each of the two metrics for its values (`get`), in the shape its own metrics give.
 */
interface Timing {
  method: string;
  route: string;
  /** Observations per bucket, not cumulative; the last is above every bound (+Inf). */
  buckets: number[];
  sum: number;
  count: number;
  /** Requests by status. */
  statuses: Map<number, number>;
}

type Value = { labels: Record<string, string | number>; value: number; metricName?: string; sharedLabels?: Record<string, string> };

export class RequestMetrics {
  /** route -> method -> its series. */
  private readonly series = new Map<string, Map<string, Timing>>();

  constructor(private readonly bounds: readonly number[]) {}

  /** Has `registry` write these two metrics at each scrape (from the first: front/monitoring.ts). */
  register(registry: Registry): void {
    const counter = {
      name: 'stoa_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({ ...counter, values: this.counts() }),
    };
    const histogram = {
      name: 'stoa_http_request_duration_seconds',
      help: "Time from a request's arrival to its answer (long-polls included), by method and route template",
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({ ...histogram, values: this.latencies(histogram.name) }),
    };
    // The registry takes any object with a name and a `get` in its metrics' shape.
    registry.registerMetric(counter as unknown as Metric);
    registry.registerMetric(histogram as unknown as Metric);
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (!byMethod) this.series.set(route, (byMethod = new Map()));
    let s = byMethod.get(method);
    if (!s) byMethod.set(method, (s = { method, route, buckets: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0, statuses: new Map() }));
    let b = 0;
    while (b < this.bounds.length && seconds > this.bounds[b]) b++;
    s.buckets[b]++;
    s.sum += seconds;
    s.count++;
    s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
  }

  private *all(): Iterable<Timing> {
    for (const byMethod of this.series.values()) yield* byMethod.values();
  }

  private counts(): Value[] {
    const values: Value[] = [];
    for (const s of this.all()) for (const [status, n] of s.statuses) values.push({ labels: { method: s.method, route: s.route, status: String(status) }, value: n });
    return values;
  }

  /** As prom-client's Histogram gives them: cumulative buckets, +Inf, the sum and the count. */
  private latencies(name: string): Value[] {
    const values: Value[] = [];
    for (const s of this.all()) {
      const shared = { method: s.method, route: s.route };
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.buckets[i];
        values.push({ labels: { le }, value: acc, metricName: `${name}_bucket`, sharedLabels: shared });
      });
      values.push({ labels: { le: '+Inf' }, value: s.count, metricName: `${name}_bucket`, sharedLabels: shared });
      values.push({ labels: {}, value: s.sum, metricName: `${name}_sum`, sharedLabels: shared });
      values.push({ labels: {}, value: s.count, metricName: `${name}_count`, sharedLabels: shared });
    }
    return values;
  }
}
