import { badRequest, missingArgument } from '../../lib/errors.js';
import { field, has, int, malformedPayload, optional, registerIntegration, str, type WebhookRequest } from './registry.js';
import { truthy } from './py.js';

/**
 * Slack-compatible incoming webhooks (zerver/webhooks/slack_incoming, as of 10.2): the many
 * tools that post to Slack's webhooks post here. The message is rendered from Slack's blocks
 * and (legacy) attachments, or else its `text`; Slack's mrkdwn bold, italics and links become
 * Markdown. The topic is the URL's, else the payload's channel, else none. Answers carry
 * Slack's `ok`, errors Slack's `{ok: false, error}`.
 */
type Block = Record<string, unknown>;

const BLOCK_TYPES = ['actions', 'context', 'divider', 'header', 'image', 'input', 'section'];

function oneOf(value: unknown, allowed: string[], name: string): string {
  if (typeof value !== 'string' || !allowed.includes(value)) throw badRequest(`Invalid ${name}`);
  return value;
}

/** check_url */
function url(value: unknown, ...path: (string | number)[]): string {
  const text = str(value, ...path);
  try {
    if (['http:', 'https:', 'ftp:', 'ftps:'].includes(new URL(text).protocol)) return text;
  } catch {
    // falls through
  }
  throw badRequest(`${path.join('.')} is not a URL`);
}

/** A text object's text (plain_text or, where allowed, mrkdwn). */
function text(block: unknown, plainOnly = false): string {
  oneOf(field(block, 'type'), plainOnly ? ['plain_text'] : ['plain_text', 'mrkdwn'], 'text type');
  return str(block, 'text');
}

/** Only images of the interactive elements mean something here. */
function element(el: unknown): string {
  return str(el, 'type') === 'image' ? `[${str(el, 'alt_text')}](${url(el, 'image_url')})` : '';
}

const joinPieces = (pieces: string[]) =>
  pieces
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .join('\n\n');

/** Two columns of fields: a table with a blank header, pipes and newlines turned into spaces. */
function fieldsTable(fields: string[]): string {
  let table = '| | |\n|-|-|\n';
  const cells = fields.map((f) => f.replace(/\n/g, ' ').replace(/\|/g, ' '));
  for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ''} |\n`;
  return table;
}

function renderBlock(block: Block): string {
  const type = oneOf(field(block, 'type'), BLOCK_TYPES, 'block type');
  if (type === 'context' && truthy(block.elements)) {
    // Slack packs these left to right; here they stack.
    return joinPieces(field<unknown[]>(block, 'elements').map((el) => (oneOf(field(el, 'type'), ['image', 'plain_text', 'mrkdwn'], 'element type') === 'image' ? element(el) : text(el))));
  }
  if (type === 'divider') return '----';
  if (type === 'header') return `## ${text(field(block, 'text'), true)}`;
  if (type === 'image') {
    const image = url(block, 'image_url');
    const alt = has(block, 'title') ? (str(block, 'alt_text'), text(block.title, true)) : str(block, 'alt_text');
    return `[${alt}](${image})`;
  }
  if (type === 'section') {
    const pieces: string[] = [];
    if (has(block, 'text')) pieces.push(text(block.text));
    if (has(block, 'accessory')) pieces.push(element(block.accessory));
    if (has(block, 'fields')) {
      const fields = field<unknown[]>(block, 'fields').map((f) => text(f));
      pieces.push(fields.length === 1 ? fields[0] : fieldsTable(fields));
    }
    return joinPieces(pieces);
  }
  return '';
}

function renderAttachment(a: Block): string {
  const pieces: string[] = [];
  if (truthy(a.title)) pieces.push(truthy(a.title_link) ? `## [${str(a, 'title')}](${url(a, 'title_link')})` : `## ${str(a, 'title')}`);
  if (truthy(a.pretext)) pieces.push(str(a, 'pretext'));
  if (truthy(a.text)) pieces.push(str(a, 'text'));
  if (has(a, 'fields')) {
    const lines: string[] = [];
    for (const f of field<Block[]>(a, 'fields')) {
      if (truthy(optional(f, 'title')) && truthy(optional(f, 'value'))) lines.push(`*${str(f, 'title')}*: ${str(f, 'value')}`);
      else if (truthy(optional(f, 'title'))) lines.push(`*${str(f, 'title')}*`);
      else if (truthy(optional(f, 'value'))) lines.push(str(f, 'value'));
    }
    pieces.push(lines.join('\n'));
  }
  if (truthy(a.blocks)) pieces.push(...field<Block[]>(a, 'blocks').map(renderBlock));
  if (truthy(a.image_url)) pieces.push(`[](${url(a, 'image_url')})`);
  if (truthy(a.footer)) pieces.push(str(a, 'footer'));
  if (truthy(a.ts)) pieces.push(`<time:${int(a, 'ts')}>`);
  return joinPieces(pieces);
}

const replaceLinks = (s: string) => s.replace(/<(\w+?:\/\/.*?)\|(.*?)>/g, '[$2]($1)');

// Python's \w is Unicode's letters and digits, and `_`.
const W = '\\p{L}\\p{N}_';

const BOLD = new RegExp(`([^${W}]|^)\\*(?!\\s+)([^*\\n]+)(?<!\\s)\\*((?=[^${W}])|$)`, 'gu');
const ITALICS = new RegExp(`([^${W}]|^)_(?!\\s+)([^_\\n]+)(?<!\\s)_((?=[^${W}])|$)`, 'gu');

/** Slack's *bold* is Markdown's **bold**, its _italics_ Markdown's *italics*. */
const replaceFormatting = (s: string) => s.replace(BOLD, '$1**$2**$3').replace(ITALICS, '$1*$2*$3');

function readPayload(req: WebhookRequest): Block {
  // Slack takes the JSON as the body, or as the form (or query) field `payload`.
  let raw: string;
  if (req.contentType === 'application/json') raw = req.rawBody;
  else if (req.params.payload !== undefined) raw = req.params.payload;
  else throw missingArgument('payload');
  try {
    return JSON.parse(raw) as Block;
  } catch {
    throw malformedPayload();
  }
}

function handle(req: WebhookRequest) {
  const p = readPayload(req);
  if (p === null || typeof p !== 'object' || Array.isArray(p)) throw malformedPayload();
  const topic = has(p, 'channel') ? str(p, 'channel').replace(/^[@#]/, '') : '(no topic)';
  const pieces: string[] = [];
  if (truthy(p.blocks)) pieces.push(...field<Block[]>(p, 'blocks').map(renderBlock));
  if (truthy(p.attachments)) pieces.push(...field<Block[]>(p, 'attachments').map(renderAttachment));
  let body = joinPieces(pieces);
  if (body === '' && truthy(p.text)) {
    if (truthy(p.icon_emoji)) body = `${str(p, 'icon_emoji')} `;
    body = `${body}${str(p, 'text')}`.trim();
  }
  if (body === '') return [];
  return [{ topic, body: replaceFormatting(replaceLinks(body).trim()) }];
}

registerIntegration({ name: 'slack_incoming', displayName: 'Slack-compatible webhook', webhookName: 'SlackIncoming', allEventTypes: null, payload: 'none', slackErrors: true, handle });
