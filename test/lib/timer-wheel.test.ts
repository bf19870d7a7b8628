import t from 'tap';
import { TimerWheel } from '../../src/lib/timer-wheel.js';

// The wheel never reads the clock in these tests: time is whatever advance() is told.
t.test('TimerWheel', async (t) => {
  t.test('fires a timer once its time has come, not before', async (t) => {
    const wheel = new TimerWheel({ now: 0 });
    const fired: string[] = [];
    wheel.schedule(5_000, () => fired.push('a'));
    wheel.advance(4_999);
    t.same(fired, [], 'not at 4.999 s');
    wheel.advance(5_000);
    t.same(fired, ['a'], 'at 5 s');
    wheel.advance(10_000);
    t.same(fired, ['a'], 'only once');
    t.equal(wheel.size, 0, 'nothing pending');
  });

  t.test('fires in due order within a tick and across ticks', async (t) => {
    const wheel = new TimerWheel({ now: 0 });
    const fired: number[] = [];
    for (const at of [3_500, 1_200, 3_100, 2_000]) wheel.schedule(at, () => fired.push(at));
    wheel.advance(4_000);
    t.same(fired, [1_200, 2_000, 3_100, 3_500], 'ascending due times');
  });

  t.test('a cancelled timer never fires', async (t) => {
    const wheel = new TimerWheel({ now: 0 });
    let fired = false;
    const timer = wheel.schedule(2_000, () => (fired = true));
    wheel.cancel(timer);
    wheel.cancel(timer);
    wheel.advance(3_000);
    t.equal(fired, false, 'not fired');
    t.equal(timer.done, true, 'marked done');
    t.equal(wheel.size, 0, 'cancelling twice counts once');
  });

  t.test('timers further than one revolution ahead wait for their revolution', async (t) => {
    const wheel = new TimerWheel({ now: 0, slots: 8 });
    const fired: number[] = [];
    wheel.schedule(3_000, () => fired.push(3));
    wheel.schedule(11_000, () => fired.push(11));
    wheel.schedule(19_000, () => fired.push(19));
    wheel.advance(3_000);
    t.same(fired, [3], 'the same slot, only the due one fires');
    wheel.advance(11_000);
    t.same(fired, [3, 11], 'one revolution later');
    wheel.advance(19_000);
    t.same(fired, [3, 11, 19], 'two revolutions later');
  });

  t.test('a long pause fires everything that fell due, once', async (t) => {
    const wheel = new TimerWheel({ now: 0, slots: 8 });
    const fired: number[] = [];
    for (let i = 1; i <= 20; i++) wheel.schedule(i * 1_000, () => fired.push(i));
    wheel.advance(100_000);
    t.equal(fired.length, 20, 'all twenty fired');
    t.same([...new Set(fired)].length, 20, 'none twice');
  });

  t.test('a timer scheduled in the past fires on the next tick', async (t) => {
    const wheel = new TimerWheel({ now: 10_000 });
    let fired = false;
    wheel.schedule(1_000, () => (fired = true));
    wheel.advance(10_999);
    t.equal(fired, false, 'not within the current tick');
    wheel.advance(11_000);
    t.equal(fired, true, 'on the next tick');
  });

  t.test('a timer may schedule another from its callback', async (t) => {
    const wheel = new TimerWheel({ now: 0 });
    const fired: number[] = [];
    wheel.schedule(1_000, () => {
      fired.push(1);
      wheel.schedule(2_000, () => fired.push(2));
    });
    wheel.advance(1_000);
    wheel.advance(2_000);
    t.same(fired, [1, 2], 'the rescheduled timer fires too');
  });

  t.test('a timer scheduled from a callback for now fires on the next tick, not a revolution later', async (t) => {
    const wheel = new TimerWheel({ now: 0, slots: 8 });
    const fired: number[] = [];
    wheel.schedule(1_000, () => {
      fired.push(1);
      wheel.schedule(1_000, () => fired.push(2));
    });
    wheel.advance(1_000);
    t.same(fired, [1], 'not in the tick being run');
    wheel.advance(2_000);
    t.same(fired, [1, 2], 'on the next tick');

    // Within one advance over several ticks, the next tick is still part of it.
    const burst: number[] = [];
    wheel.schedule(3_000, () => {
      burst.push(3);
      wheel.schedule(0, () => burst.push(4));
    });
    wheel.advance(6_000);
    t.same(burst, [3, 4], 'both fired in the same advance');
  });

  t.test('cancelling timers anywhere in a slot, again and again, leaves the others to fire in order', async (t) => {
    const wheel = new TimerWheel({ now: 0 });
    const fired: number[] = [];
    // One slot (all due within the same second), re-armed as polls re-arm their queues' expiry.
    const timers = Array.from({ length: 10 }, (_, i) => wheel.schedule(5_000 + i, () => fired.push(i)));
    for (let round = 0; round < 100; round++) {
      const i = (round * 7) % 10;
      wheel.cancel(timers[i]);
      wheel.cancel(timers[i]); // twice: the second does nothing
      timers[i] = wheel.schedule(5_000 + i, () => fired.push(i));
    }
    t.equal(wheel.size, 10, 'ten pending');
    wheel.cancel(timers[0]);
    wheel.cancel(timers[9]);
    wheel.cancel(timers[4]);
    t.equal(wheel.size, 7);
    wheel.advance(6_000);
    t.same(fired, [1, 2, 3, 5, 6, 7, 8], 'the rest, in due order, once each');
    t.equal(wheel.size, 0);
    t.ok(timers.every((timer) => timer.done), 'every timer done');
  });

  t.test('a callback that cancels a timer due in the same tick stops it', async (t) => {
    const wheel = new TimerWheel({ now: 0 });
    const fired: string[] = [];
    const later = wheel.schedule(5_500, () => fired.push('later'));
    wheel.schedule(5_100, () => {
      fired.push('first');
      wheel.cancel(later);
    });
    wheel.advance(6_000);
    t.same(fired, ['first']);
    t.equal(wheel.size, 0, 'counted once');
  });
});
