/**
 * Slack's message markup to Zulip's Markdown, as the reference's importer converts it
 * (zerver/data_import/slack_message_conversion.py): *bold*, _italic_ and ~strike~ where they
 * stand between punctuation, spaces or line ends; <!everyone>, <!channel> and <!here> to
 * @**all**; <#C123|name> channel links; <@U123|name> mentions to @**Full Name**; <url|text>
 * links; <mailto:...> addresses. Blocks and legacy attachments (bots' messages) are rendered to
 * text first, as the reference's render_block and render_attachment do.
 */

export interface SlackUser {
  id: string;
  name: string;
  real_name?: string;
  deleted?: boolean;
  is_mirror_dummy?: boolean;
  profile?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The reference's get_user_full_name. */
export function slackFullName(user: SlackUser): string {
  if (user.deleted === false) return (user.real_name as string) || user.name;
  if (user.is_mirror_dummy) return String(user.profile?.real_name ?? user.name);
  return user.name;
}

const LINK = /(<)(http:\/\/www\.|https:\/\/www\.|http:\/\/|https:\/\/|ftp:\/\/)?([a-z0-9]+([-.]{1}[a-z0-9]+)*)(\.)([a-z]{2,63}(:[0-9]{1,5})?)(\/[^>]*)?(\|)?(?:\|([^>]+))?(>)/g;
const MAILTO = /<((mailto:)?([\w.-]+@[\w.-]+(\.[\w]+)+))(\|)?([\w.-]+@[\w.-]+(\.[\w]+)+)?>/g;
const MENTION = /(<@)([a-zA-Z0-9]+)(\|)?([a-zA-Z0-9]+)?(>)/;

/**
 * *x*, _x_, ~x~ between a boundary (punctuation, space, symbol or line start, but not the
 * marker itself, a backtick, @, \ or a closing bracket or quote) and a boundary after (the same,
 * but not an opening bracket or quote).
 */
function formatting(marker: string): RegExp {
  const m = marker === '*' ? '\\*' : marker;
  const before = `((?![${m}\`@\\\\\\p{Pf}\\p{Pe}])[\\p{P}\\p{Zs}\\p{S}]|^)`;
  const after = `((?![${m}\`@\\\\\\p{Pi}\\p{Ps}])(?=[\\p{P}\\p{Zs}\\p{S}]|$))`;
  return new RegExp(`${before}(${m})([^${m}]+)(${m})${after}`, 'gmu');
}
const BOLD = formatting('*');
const STRIKE = formatting('~');
const ITALIC = formatting('_');

/** Slack's bold, strikethrough and italics to Zulip's. */
export function convertFormatting(text: string): string {
  const apply = (input: string, pattern: RegExp, keyword: string) => input.replace(pattern, (_all, before: string, _open, body: string) => `${before}${keyword}${body}${keyword}`);
  return apply(apply(apply(text, BOLD, '**'), STRIKE, '~~'), ITALIC, '*');
}

/** '<https://foo.com>' -> 'https://foo.com'; '<https://foo.com|foo>' -> '[foo](https://foo.com)'. */
export function convertLinks(text: string): { text: string; hasLink: boolean } {
  let hasLink = false;
  let out = text;
  for (const match of text.matchAll(LINK)) {
    const slack = match[0];
    const [url, label] = splitOnce(slack.slice(1, -1), '|');
    hasLink = true;
    out = out.split(slack).join(label === undefined ? url : `[${label}](${url})`);
  }
  return { text: out, hasLink };
}

function splitOnce(text: string, sep: string): [string, string | undefined] {
  const at = text.indexOf(sep);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

export function convertMailto(text: string): { text: string; hasLink: boolean } {
  let hasLink = false;
  let out = text;
  for (const match of text.matchAll(MAILTO)) {
    hasLink = true;
    out = out.split(match[0]).join(match[1]);
  }
  return { text: out, hasLink };
}

export interface ConvertContext {
  users: SlackUser[];
  /** Channel name -> [Slack id, ...]. */
  channels: Map<string, string>;
  /** Slack user id -> new user id. */
  userIds: Map<string, number>;
}

/** The reference's convert_to_zulip_markdown: the text, the users it mentions, whether it links. */
export function toZulipMarkdown(input: string, ctx: ConvertContext): { text: string; mentioned: number[]; hasLink: boolean } {
  let text = convertFormatting(input);
  text = text.replaceAll('<!everyone>', '@**all**').replaceAll('<!channel>', '@**all**').replaceAll('<!here>', '@**all**');
  for (const [name, id] of ctx.channels) text = text.replaceAll(`<#${id}|${name}>`, `#**${name}**`);
  const mentioned: number[] = [];
  const tokens = text.split(' ').map((token) => {
    const m = MENTION.exec(token);
    if (!m) return token;
    const user = ctx.users.find((u) => u.id === m[2] && (m[4] === undefined || u.name === m[4]));
    if (!user) return token;
    const id = ctx.userIds.get(m[2]);
    if (id !== undefined) mentioned.push(id);
    return token.replace(new RegExp(MENTION.source, 'g'), `@**${slackFullName(user)}**`);
  });
  text = tokens.join(' ');
  const links = convertLinks(text);
  const mailto = convertMailto(links.text);
  return { text: mailto.text, mentioned, hasLink: links.hasLink || mailto.hasLink };
}

type Json = Record<string, any>;

function textOf(block: Json | undefined): string {
  return block && typeof block.text === 'string' ? block.text : '';
}

function renderElement(element: Json): string {
  return element.type === 'image' ? `[${String(element.alt_text ?? '')}](${String(element.image_url)})` : '';
}

/** The reference's render_block: what of Slack's Block Kit has a text form. */
export function renderBlock(block: Json): string {
  switch (block.type) {
    case 'context':
      return (block.elements ?? [])
        .map((e: Json) => (e.type === 'image' ? renderElement(e) : textOf(e)))
        .map((p: string) => p.trim())
        .filter((p: string) => p !== '')
        .join('\n\n');
    case 'divider':
      return '----';
    case 'header':
      return `## ${textOf(block.text)}`;
    case 'image':
      return `[${block.title ? textOf(block.title) : String(block.alt_text ?? '')}](${String(block.image_url)})`;
    case 'section': {
      const pieces: string[] = [];
      if (block.text) pieces.push(textOf(block.text));
      if (block.accessory) pieces.push(renderElement(block.accessory));
      const fields = (block.fields ?? []) as Json[];
      if (fields.length === 1) pieces.push(textOf(fields[0]));
      else if (fields.length > 1) {
        const cells = fields.map((f) => textOf(f).replaceAll('\n', ' ').replaceAll('|', ' '));
        let table = '| | |\n|-|-|\n';
        for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ''} |\n`;
        pieces.push(table);
      }
      return pieces.map((p) => p.trim()).filter((p) => p !== '').join('\n\n');
    }
    default:
      return '';
  }
}

/** The reference's render_attachment (Slack's legacy message attachments). */
export function renderAttachment(a: Json): string {
  const pieces: string[] = [];
  if (a.title) pieces.push(a.title_link ? `## [${a.title}](${a.title_link})` : `## ${a.title}`);
  if (a.pretext) pieces.push(a.pretext);
  if (a.text) pieces.push(a.text);
  if (Array.isArray(a.fields)) {
    pieces.push(
      a.fields
        .map((f: Json) => (f.title && f.value ? `*${f.title}*: ${f.value}` : f.title ? `*${f.title}*` : f.value ? String(f.value) : null))
        .filter((f: string | null) => f !== null)
        .join('\n'),
    );
  }
  if (Array.isArray(a.blocks)) pieces.push(...a.blocks.map(renderBlock));
  if (a.image_url) pieces.push(`[](${encodeURI(decodeURI(String(a.image_url)))})`);
  if (a.footer) pieces.push(a.footer);
  if (a.ts) {
    const seconds = Math.floor(Number(a.ts));
    if (Number.isFinite(seconds)) pieces.push(`<time:${new Date(seconds * 1000).toISOString().replace('.000Z', '+00:00')}>`);
  }
  return pieces.map((p) => String(p).trim()).filter((p) => p !== '').join('\n\n');
}

/** The reference's process_slack_block_and_attachment: a bot message's text from its blocks and attachments. */
export function blocksAndAttachments(message: Json): string {
  const pieces: string[] = [];
  if (Array.isArray(message.blocks)) pieces.push(...message.blocks.map(renderBlock));
  if (Array.isArray(message.attachments)) pieces.push(...message.attachments.map(renderAttachment));
  return pieces.map((p) => p.trim()).filter((p) => p !== '').join('\n');
}
