import { useState } from 'preact/hooks';
import { call } from '../api.js';
import type { Store } from '../store/store.js';
import type { Message, Submessage } from '../types.js';

/**
 * Polls and to-do lists: a message starting with `/poll` or `/todo` carries its widget's state
 * as submessages (the first, from the sender, sets it up; votes, options, tasks and strikes
 * follow), which every client folds the same way (the reference's poll_data.ts and
 * todo_widget.ts keys: `canned,<i>` or `<sender>,<idx>` for options, `<idx>,canned` or
 * `<idx>,<sender>` for tasks). Changes go out as POST /submessage and come back as events.
 */
function parse(s: Submessage): any {
  try {
    return JSON.parse(s.content);
  } catch {
    return null;
  }
}

export function widgetOf(msg: Message): 'poll' | 'todo' | null {
  const first = msg.submessages?.[0];
  const setup = first && first.sender_id === msg.sender_id ? parse(first) : null;
  return setup?.widget_type === 'poll' || setup?.widget_type === 'todo' ? setup.widget_type : null;
}

const send = (msg: Message, content: object) => call('POST', '/submessage', { message_id: msg.id, msg_type: 'widget', content: JSON.stringify(content) });

export function Widget({ store, msg }: { store: Store; msg: Message }) {
  return widgetOf(msg) === 'poll' ? <Poll store={store} msg={msg} /> : <Todo msg={msg} />;
}

function Poll({ store, msg }: { store: Store; msg: Message }) {
  const [text, setText] = useState('');
  const subs = msg.submessages ?? [];
  const setup = parse(subs[0]).extra_data ?? {};
  let question: string = setup.question ?? '';
  const options = new Map<string, { text: string; voters: Set<number> }>();
  (setup.options ?? []).forEach((o: string, i: number) => options.set(`canned,${i}`, { text: o, voters: new Set() }));
  let myIdx = 1;
  for (const s of subs.slice(1)) {
    const d = parse(s);
    if (d?.type === 'new_option') {
      options.set(`${s.sender_id},${d.idx}`, { text: String(d.option), voters: new Set() });
      if (s.sender_id === store.selfId) myIdx = Math.max(myIdx, Number(d.idx) + 1);
    } else if (d?.type === 'vote') {
      const o = options.get(d.key);
      if (o) d.vote === 1 ? o.voters.add(s.sender_id) : o.voters.delete(s.sender_id);
    } else if (d?.type === 'question' && s.sender_id === msg.sender_id) question = String(d.question);
  }
  return (
    <div class="widget poll" role="group" aria-label={`Poll: ${question}`}>
      <p class="widget-title">{question || 'Poll'}</p>
      <ul class="plain">
        {[...options].map(([key, o]) => {
          const mine = o.voters.has(store.selfId);
          return (
            <li key={key}>
              <button type="button" aria-pressed={mine} aria-label={`${mine ? 'Remove your vote for' : 'Vote for'} ${o.text} (${o.voters.size} votes)`} onClick={() => void send(msg, { type: 'vote', key, vote: mine ? -1 : 1 })}>
                {o.voters.size}
              </button>{' '}
              {o.text}
              {o.voters.size > 0 && <small> ({[...o.voters].map((id) => store.userName(id)).join(', ')})</small>}
            </li>
          );
        })}
      </ul>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim()) void send(msg, { type: 'new_option', idx: myIdx, option: text.trim() }).then(() => setText(''));
        }}
      >
        <input aria-label="New option" placeholder="New option" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} /> <button type="submit">Add option</button>
      </form>
    </div>
  );
}

function Todo({ msg }: { msg: Message }) {
  const [text, setText] = useState('');
  const subs = msg.submessages ?? [];
  const setup = parse(subs[0]).extra_data ?? {};
  let title: string = setup.task_list_title ?? '';
  const tasks = new Map<string, { task: string; desc: string; done: boolean }>();
  (setup.tasks ?? []).forEach((t: { task: string; desc: string }, i: number) => tasks.set(`${i},canned`, { task: t.task, desc: t.desc, done: false }));
  let next = tasks.size;
  for (const s of subs.slice(1)) {
    const d = parse(s);
    if (d?.type === 'new_task') {
      tasks.set(`${d.key},${s.sender_id}`, { task: String(d.task), desc: String(d.desc ?? ''), done: !!d.completed });
      next = Math.max(next, Number(d.key) + 1);
    } else if (d?.type === 'strike') {
      const t = tasks.get(d.key);
      if (t) t.done = !t.done;
    } else if (d?.type === 'new_task_list_title' && s.sender_id === msg.sender_id) title = String(d.title);
  }
  return (
    <div class="widget todo" role="group" aria-label={`To-do list: ${title || 'Task list'}`}>
      <p class="widget-title">{title || 'Task list'}</p>
      <ul class="plain">
        {[...tasks].map(([key, t]) => (
          <li key={key}>
            <label class="inline">
              <input type="checkbox" checked={t.done} onChange={() => void send(msg, { type: 'strike', key })} /> <span class={t.done ? 'done' : ''}>{t.task}</span>
              {t.desc && <small> {t.desc}</small>}
            </label>
          </li>
        ))}
      </ul>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim()) void send(msg, { type: 'new_task', key: next, task: text.trim(), desc: '', completed: false }).then(() => setText(''));
        }}
      >
        <input aria-label="New task" placeholder="New task" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} /> <button type="submit">Add task</button>
      </form>
    </div>
  );
}
