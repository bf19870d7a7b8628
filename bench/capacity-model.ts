/**
 * docs/SCALING.md's capacity model: what a host of many organizations needs, from the per-unit
 * costs bench/capacity.ts measures on this machine.
 */
export interface Inputs {
  /** RSS of a server with one small organization. */
  baseRssMb: number;
  mbPerOrg: number;
  mbPerThousandPeople: number;
  kbPerQueue: number;
  kbPerParkedPoll: number;
  /** CPU time of the whole process per send nobody listens to, and per event delivered to a long-poll. */
  cpuMsPerSend: number;
  cpuMsPerEvent: number;
  /** The same, of the main thread alone (HTTP, answers to long-polls: one core per node). */
  mainMsPerSend: number;
  mainMsPerEvent: number;
  /**
   * CPU of one poll that comes back with one event and is parked again (lockstep). At the rates
   * of real organizations nothing batches: every event costs a poll, and so does every
   * heartbeat (one per parked poll every heartbeatSeconds).
   */
  cpuMsPerPoll: number;
  mainMsPerPoll: number;
  storeMbPerMillion: number;
}

/** Young generations and buffers a busy node holds beyond its units (the mix measured 68 MB). */
export const BUSY_HEADROOM_MB = 70;
export const HEARTBEAT_SECONDS = 50;

/**
 * The activity mix: 10,000 organizations of three kinds. Every send goes to a channel everyone
 * in the organization follows (an upper bound on fan-out), and the online share of its people
 * each hold one event queue with a long-poll parked. The peak hour sends at `peakFactor` times
 * the average rate of an 8-hour working day.
 */
export const MIX = {
  organizations: 10_000,
  kinds: [
    { name: 'small', share: 0.8, people: 8, sendsPerDay: 60 },
    { name: 'medium', share: 0.18, people: 60, sendsPerDay: 1_200 },
    { name: 'large', share: 0.02, people: 600, sendsPerDay: 15_000 },
  ],
  online: 0.5,
  peakFactor: 3,
  workdayHours: 8,
};

export interface Load {
  organizations: number;
  people: number;
  queues: number;
  sendsPerSecond: number;
  eventsPerSecond: number;
  rssMb: number;
  cpuCores: number;
  mainCores: number;
  storeGbPerYear: number;
  /** The busiest organization's CPU at peak, in cores: it lives on one shard, one core. */
  largestOrgCores: number;
  /** Polls answered per second: one per event delivered, one per heartbeat. */
  pollsPerSecond: number;
}

/** The mix at `fraction` of its size (1: the 10,000 organizations), on one process. */
export function model(i: Inputs, fraction: number): Load {
  let organizations = 0;
  let people = 0;
  let sends = 0;
  let events = 0;
  let sendsPerDay = 0;
  let largestOrgCores = 0;
  for (const kind of MIX.kinds) {
    const count = Math.round(MIX.organizations * kind.share * fraction);
    const rate = (kind.sendsPerDay * MIX.peakFactor) / (MIX.workdayHours * 3600);
    const listeners = kind.people * MIX.online;
    organizations += count;
    people += count * kind.people;
    sends += count * rate;
    events += count * rate * listeners;
    sendsPerDay += count * kind.sendsPerDay;
    // Its shard's part: the send, and shaping each listener's event (not the polls' HTTP).
    largestOrgCores = Math.max(largestOrgCores, (rate * (i.cpuMsPerSend - i.mainMsPerSend + listeners * (i.cpuMsPerPoll - i.mainMsPerPoll))) / 1000);
  }
  const queues = people * MIX.online;
  const polls = events + queues / HEARTBEAT_SECONDS;
  return {
    organizations,
    people,
    queues,
    sendsPerSecond: sends,
    eventsPerSecond: events,
    pollsPerSecond: polls,
    rssMb: i.baseRssMb + organizations * i.mbPerOrg + (people / 1000) * i.mbPerThousandPeople + (queues * (i.kbPerQueue + i.kbPerParkedPoll)) / 1024 + BUSY_HEADROOM_MB,
    cpuCores: (sends * i.cpuMsPerSend + polls * i.cpuMsPerPoll) / 1000,
    mainCores: (sends * i.mainMsPerSend + polls * i.mainMsPerPoll) / 1000,
    storeGbPerYear: (sendsPerDay * 250 * i.storeMbPerMillion) / 1e6 / 1024,
    largestOrgCores,
  };
}

/**
 * Nodes of `cores` and `memoryGb` for the whole mix: each resource kept below `headroom` of the
 * node (room for a move, a burst, a lost node's organizations). The main thread is one core
 * whatever the node's size, and so is each shard.
 */
export function nodesNeeded(i: Inputs, cores: number, memoryGb: number, headroom = 0.6): { nodes: number; bound: 'memory' | 'cpu' | 'main thread'; perResource: Record<string, number> } {
  const all = model(i, 1);
  const perResource = {
    memory: (all.rssMb - i.baseRssMb - BUSY_HEADROOM_MB) / (memoryGb * 1024 * headroom - i.baseRssMb - BUSY_HEADROOM_MB),
    cpu: all.cpuCores / (cores * headroom),
    'main thread': all.mainCores / headroom,
  };
  const [bound, need] = Object.entries(perResource).sort((a, b) => b[1] - a[1])[0] as ['memory' | 'cpu' | 'main thread', number];
  return { nodes: Math.ceil(need), bound, perResource };
}
