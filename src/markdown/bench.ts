/**
 * The renderer's cost per message on a typical mix of chat messages, for the bench to report.
 * Run directly (node dist/src/markdown/bench.js) it prints the figure.
 */
import { renderMarkdown } from './index.js';
import type { RenderContext } from './types.js';

const USERS = [
  { id: 1, fullName: 'Ada Lovelace' },
  { id: 2, fullName: 'Alan Turing' },
];

const CONTEXT: RenderContext = {
  userByFullName: (name) => USERS.find((u) => u.fullName.toLowerCase() === name.toLowerCase()),
  userById: (id) => USERS.find((u) => u.id === id),
  groupByName: (name) => (name === 'devs' ? { id: 10, name: 'devs' } : undefined),
  streamByName: (name) => (name === 'general' ? { id: 3, name: 'general' } : undefined),
  realmUrl: 'http://localhost:9991',
  linkifiers: [{ pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://github.com/org/repo/issues/{id}' }],
};

/** Weighted toward short plain messages, as chat traffic is. */
export const TYPICAL_MIX: string[] = [
  'ok',
  'Sounds good, thanks!',
  'I will look at it after lunch.',
  'Can you take a look at this when you have a minute?',
  '@**Ada Lovelace** the build is green again :tada:',
  'Fixed in #1234, see https://github.com/org/repo/pull/1235 for details.',
  'The **deploy** is *done*; ping @*devs* if anything looks off.',
  'Moving this to #**general>release planning**.',
  '```python\ndef add(a, b):\n    return a + b\n```',
  '> I think we should ship on Friday.\n\nAgreed, with one caveat:\n* tests pass\n* docs updated',
  'Screenshot: https://example.com/screenshot.png',
  'Area: $$\\pi r^2$$ 👍',
];

export interface BenchResult {
  messages: number;
  /** wall-clock time per message */
  microsecondsPerMessage: number;
  /** this process's CPU time per message: steadier than wall time on a shared machine */
  cpuMicrosecondsPerMessage: number;
}

/** Renders the mix `rounds` times after a warm-up and reports the mean cost per message. */
export function benchMarkdown(rounds = 200): BenchResult {
  for (const content of TYPICAL_MIX) renderMarkdown(content, CONTEXT);
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (let r = 0; r < rounds; r++) {
    for (const content of TYPICAL_MIX) renderMarkdown(content, CONTEXT);
  }
  const used = process.cpuUsage(cpu);
  const messages = rounds * TYPICAL_MIX.length;
  return {
    messages,
    microsecondsPerMessage: ((performance.now() - start) * 1000) / messages,
    cpuMicrosecondsPerMessage: (used.user + used.system) / messages,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = benchMarkdown();
  console.log(
    `markdown: ${result.microsecondsPerMessage.toFixed(1)} µs/message wall, ` +
      `${result.cpuMicrosecondsPerMessage.toFixed(1)} µs CPU, over ${result.messages} messages`,
  );
}
