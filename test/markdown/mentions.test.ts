import t from 'tap';
import { runCases } from './fixtures/context.js';

const hamlet = '<span class="user-mention" data-user-id="4">@King Hamlet</span>';

t.test('renderMarkdown: user, wildcard and group mentions', async (t) => {
  runCases(t, [
    { name: 'by name', input: '@**King Hamlet** hi', html: `<p>${hamlet} hi</p>`, mentions: { users: [4] } },
    { name: 'names match case-insensitively, shown as stored', input: '@**king hamlet**', html: `<p>${hamlet}</p>`, mentions: { users: [4] } },
    { name: 'by name and id', input: '@**King Hamlet|4**', html: `<p>${hamlet}</p>`, mentions: { users: [4] } },
    { name: 'by id only', input: '@**|4**', html: `<p>${hamlet}</p>`, mentions: { users: [4] } },
    { name: 'name and id of different users is text', input: '@**Iago|4**', html: '<p>@<strong>Iago|4</strong></p>', mentions: {} },
    { name: 'an unknown name stays text', input: '@**Nobody Here**', html: '<p>@<strong>Nobody Here</strong></p>', mentions: {} },
    { name: 'an ambiguous name needs the id', input: '@**Twin**', html: '<p>@<strong>Twin</strong></p>', mentions: {} },
    {
      name: 'an ambiguous name with its id',
      input: '@**Twin|9**',
      html: '<p><span class="user-mention" data-user-id="9">@Twin</span></p>',
      mentions: { users: [9] },
    },
    {
      name: 'silent mention: no flag',
      input: '@_**Iago**',
      html: '<p><span class="user-mention silent" data-user-id="5">Iago</span></p>',
      mentions: {},
    },
    {
      name: 'a deactivated user is mentioned silently',
      input: '@**Former Member**',
      html: '<p><span class="user-mention silent" data-user-id="7">Former Member</span></p>',
      mentions: {},
    },
    {
      name: 'names with commas',
      input: '@**Othello, the Moor of Venice**',
      html: '<p><span class="user-mention" data-user-id="6">@Othello, the Moor of Venice</span></p>',
      mentions: { users: [6] },
    },
    { name: 'not inside a word', input: 'email@**King Hamlet**', html: '<p>email@<strong>King Hamlet</strong></p>', mentions: {} },
    { name: 'after an opening parenthesis', input: '(@**Iago**)', html: '<p>(<span class="user-mention" data-user-id="5">@Iago</span>)</p>', mentions: { users: [5] } },
    {
      name: 'several users, each once',
      input: '@**Iago** @**King Hamlet** @**Iago**',
      html: `<p><span class="user-mention" data-user-id="5">@Iago</span> ${hamlet} <span class="user-mention" data-user-id="5">@Iago</span></p>`,
      mentions: { users: [4, 5] },
    },
    {
      name: 'inside bold text (mentions are matched first)',
      input: '**look @**Iago** please**',
      html: '<p><strong>look <span class="user-mention" data-user-id="5">@Iago</span> please</strong></p>',
      mentions: { users: [5] },
    },
    { name: 'in code it is text', input: '`@**Iago**`', html: '<p><code>@**Iago**</code></p>', mentions: {} },
    {
      name: 'mentions in a quote are silent',
      input: '> @**Iago** said @*support*',
      html:
        '<blockquote>\n<p><span class="user-mention silent" data-user-id="5">Iago</span> said ' +
        '<span class="user-group-mention silent" data-user-group-id="17">support</span></p>\n</blockquote>',
      mentions: {},
    },
    {
      name: 'mentions in a quote fence are silent',
      input: '```quote\n@**all** look\n```',
      html: '<blockquote>\n<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span> look</p>\n</blockquote>',
      mentions: {},
    },
  ]);
});

t.test('renderMarkdown: wildcard mentions', async (t) => {
  const channel = (word: string) =>
    `<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@${word}</span></p>`;
  runCases(t, [
    { name: '@**all**', input: '@**all**', html: channel('all'), mentions: { stream: true } },
    { name: '@**everyone**', input: '@**everyone**', html: channel('everyone'), mentions: { stream: true } },
    { name: '@**channel**', input: '@**channel**', html: channel('channel'), mentions: { stream: true } },
    { name: '@**stream**', input: '@**stream**', html: channel('stream'), mentions: { stream: true } },
    { name: '@**topic**', input: '@**topic**', html: '<p><span class="topic-mention">@topic</span></p>', mentions: { topic: true } },
    {
      name: 'silent wildcards notify no one',
      input: '@_**all** @_**topic**',
      html:
        '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span> ' +
        '<span class="topic-mention silent">topic</span></p>',
      mentions: {},
    },
  ]);
});

t.test('renderMarkdown: group mentions', async (t) => {
  runCases(t, [
    {
      name: 'group',
      input: '@*support* help',
      html: '<p><span class="user-group-mention" data-user-group-id="17">@support</span> help</p>',
      mentions: { groups: [17] },
    },
    {
      name: 'silent group',
      input: '@_*support*',
      html: '<p><span class="user-group-mention silent" data-user-group-id="17">support</span></p>',
      mentions: {},
    },
    {
      name: 'a deactivated group is mentioned silently',
      input: '@*old team*',
      html: '<p><span class="user-group-mention silent" data-user-group-id="18">old team</span></p>',
      mentions: {},
    },
    { name: 'an unknown group is emphasis', input: '@*nobody*', html: '<p>@<em>nobody</em></p>', mentions: {} },
  ]);
});
