import t from 'tap';
import { pythonJson, widgetFromContent } from '../../../src/api/submessages/widgets.js';
import { checkEvent } from '../../helpers/openapi.js';
import { createUser, startTestServer } from '../../helpers/server.js';

/**
 * Widgets made on send: `/poll` and `/todo` contents, and a bot's `widget_content`, give the
 * message a first submessage with the widget's initial state, as the reference's
 * do_widget_post_save_actions stores it (the expectations are the reference's test_widgets.py).
 */
t.test('widgets on send', async (t) => {
  t.test('the slash commands, parsed as the reference parses them', async (t) => {
    for (const content of ['', '     ', 'this is an ordinary message', '/bogus_command', '/me shrugs', 'use /poll', ' /poll leading space']) {
      t.equal(widgetFromContent(content), null, `no widget: ${JSON.stringify(content)}`);
    }
    t.same(widgetFromContent('/todo'), { widget_type: 'todo', extra_data: { task_list_title: '', tasks: [] } }, '/todo');
    t.same(widgetFromContent('/todo Title'), { widget_type: 'todo', extra_data: { task_list_title: 'Title', tasks: [] } }, '/todo Title');
    t.same(widgetFromContent('/todo\nTask'), { widget_type: 'todo', extra_data: { task_list_title: '', tasks: [{ task: 'Task', desc: '' }] } }, 'a newline ends the command');
    t.same(
      widgetFromContent('/todo Example Task List Title\n\n    task without description\ntask: with description    \n\n - task as list : also with description'),
      {
        widget_type: 'todo',
        extra_data: {
          task_list_title: 'Example Task List Title',
          tasks: [
            { task: 'task without description', desc: '' },
            { task: 'task', desc: 'with description' },
            { task: 'task as list', desc: 'also with description' },
          ],
        },
      },
      'tasks, descriptions and list bullets',
    );
    t.same(
      widgetFromContent('/poll What is your favorite color?\n\nRed\nGreen  \n\n   Blue\n - Yellow'),
      { widget_type: 'poll', extra_data: { question: 'What is your favorite color?', options: ['Red', 'Green', 'Blue', 'Yellow'] } },
      'a poll with its question and options',
    );
    t.same(widgetFromContent('/poll'), { widget_type: 'poll', extra_data: { question: '', options: [] } }, 'a poll without a question');
    t.same(widgetFromContent('/todo   School Work'), { widget_type: 'todo', extra_data: { task_list_title: 'School Work', tasks: [] } }, 'leading spaces');
  });

  t.test('stored content reads as the reference writes it', async (t) => {
    t.equal(pythonJson({ widget_type: 'poll', extra_data: { question: 'Café?', options: ['a', 'b'] } }), '{"widget_type": "poll", "extra_data": {"question": "Caf\\u00e9?", "options": ["a", "b"]}}', "json.dumps's separators and ASCII escapes");
  });

  const ts = await startTestServer(t);
  const ann = await createUser(ts, 'ann@example.com', 'Ann');
  const asAnn = ts.as(ann);
  const queue = (await asAnn('POST', '/register', { params: { event_types: ['message'] } })).body;
  const message = async (id: number) => (await asAnn('GET', `/messages/${id}`)).body.message;
  const send = (content: string, extra: Record<string, unknown> = {}) => ts.request('POST', '/messages', { params: { type: 'stream', to: 'general', topic: 'widgets', content, ...extra } });

  t.test('POST /messages: a poll carries its widget in every place messages are returned', async (t) => {
    const sent = await send('/poll Preference?\n\nyes\nno');
    t.equal(sent.status, 200, 'sent');
    const subs = (await message(sent.body.id)).submessages;
    t.equal(subs.length, 1, 'one submessage');
    t.match(subs[0], { message_id: sent.body.id, sender_id: ts.owner.userId, msg_type: 'widget' }, 'from the sender, a widget');
    t.same(JSON.parse(subs[0].content), { widget_type: 'poll', extra_data: { question: 'Preference?', options: ['yes', 'no'] } }, 'the initial state');
    t.type(subs[0].id, 'number', 'with its id');
    const page = await asAnn('GET', '/messages', { params: { anchor: sent.body.id, num_before: 0, num_after: 0, narrow: [] } });
    t.same(page.body.messages[0].submessages, subs, 'GET /messages shows the same');
    const events = await asAnn('GET', '/events', { params: { queue_id: queue.queue_id, last_event_id: -1 } });
    const event = events.body.events.find((e: { message?: { id: number } }) => e.message?.id === sent.body.id);
    t.same(event.message.submessages, subs, 'and the message event');
    t.doesNotThrow(() => checkEvent(event), 'which matches the reference schema');
  });

  t.test('POST /messages: an ordinary message has none', async (t) => {
    const sent = await send('use /poll');
    t.same((await message(sent.body.id)).submessages, [], 'submessages: []');
  });

  t.test('POST /messages: widget_content, a zform of choices', async (t) => {
    const zform = { widget_type: 'zform', extra_data: { type: 'choices', heading: 'Options:', choices: [{ short_name: 'A', long_name: 'Apple', reply: 'apple' }] } };
    const sent = await send('does-not-matter', { widget_content: JSON.stringify(zform) });
    t.equal(sent.status, 200, 'sent');
    const msg = await message(sent.body.id);
    t.equal(msg.content, '<p>does-not-matter</p>', 'the content is the text, as given');
    t.same(JSON.parse(msg.submessages[0].content), zform, 'the submessage is the widget content');
  });

  t.test('POST /messages: widget_content errors, and nothing is sent', async (t) => {
    const before = (await asAnn('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0, narrow: [] } })).body.messages[0].id;
    const cases: [string, string][] = [
      ['{{{{{{', 'Widgets: API programmer sent invalid JSON content'],
      [JSON.stringify({ color: 'red', foo: 'bar', x: 2 }), 'Widgets: widget_type is not in widget_content'],
      ['5', 'Widgets: widget_content is not a dict'],
      [JSON.stringify({ widget_type: 'whatever' }), 'Widgets: extra_data is not in widget_content'],
      [JSON.stringify({ widget_type: 'zform', extra_data: 4 }), 'Widgets: extra_data is not a dict'],
      [JSON.stringify({ widget_type: 'bogus', extra_data: {} }), 'Widgets: unknown widget type: bogus'],
      [JSON.stringify({ widget_type: 'zform', extra_data: {} }), 'Widgets: zform is missing type field'],
      [JSON.stringify({ widget_type: 'zform', extra_data: { type: 'bogus' } }), 'Widgets: unknown zform type: bogus'],
      [JSON.stringify({ widget_type: 'zform', extra_data: { type: 'choices' } }), 'Widgets: heading key is missing from extra_data'],
      [JSON.stringify({ widget_type: 'zform', extra_data: { type: 'choices', heading: 'h' } }), 'Widgets: choices key is missing from extra_data'],
      [JSON.stringify({ widget_type: 'zform', extra_data: { type: 'choices', heading: 'h', choices: 99 } }), 'Widgets: extra_data["choices"] is not a list'],
      [JSON.stringify({ widget_type: 'zform', extra_data: { type: 'choices', heading: 'h', choices: [99] } }), 'Widgets: extra_data["choices"][0] is not a dict'],
      [JSON.stringify({ widget_type: 'zform', extra_data: { type: 'choices', heading: 'h', choices: [{ long_name: 'foo', reply: 'bar' }] } }), 'Widgets: short_name key is missing from extra_data["choices"][0]'],
    ];
    for (const [raw, msg] of cases) {
      const res = await send('whatever', { widget_content: raw });
      t.same(res.body, { result: 'error', msg, code: 'BAD_REQUEST' }, msg);
    }
    const after = (await asAnn('GET', '/messages', { params: { anchor: 'newest', num_before: 1, num_after: 0, narrow: [] } })).body.messages[0].id;
    t.equal(after, before, 'no message was sent');
  });
});
