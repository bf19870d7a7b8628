import { badRequest } from '../../lib/errors.js';

/**
 * Widgets, as the reference makes them (zerver/lib/widget.py, zerver/lib/validator.py): a message
 * whose content starts with `/poll` or `/todo` gets a first submessage, from its sender, with the
 * widget's initial state; a bot may instead send any `widget_content` (a zform). Votes, options,
 * tasks and edits then arrive as further submessages, whose content is checked only for its
 * shape, as in the reference: clients ignore a vote for an option that does not exist.
 */

export interface WidgetContent {
  widget_type: string;
  extra_data: Record<string, unknown>;
}

/** The reference's MAX_IDX, which its clients share: the highest option or task index. */
const MAX_IDX = 1000;

/** Python's str.splitlines(): no empty last line for a trailing line break. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A line of a list, without its `-` or `*` bullet. */
const unbullet = (line: string) => line.trim().replace(/^\s*[-*]?\s*/, '');

/** The first line is the question (or title); each further non-empty line an option (or task). */
function headAndItems(rest: string): { head: string; items: string[] } {
  const lines = splitLines(rest);
  let head = '';
  if (lines.length > 0 && lines[0] !== '') head = lines.shift()!.trim();
  return { head, items: lines.map(unbullet).filter((item) => item.length > 0) };
}

/** The widget a message's content makes, if it starts with `/poll` or `/todo`. */
export function widgetFromContent(content: string): WidgetContent | null {
  const command = /^\S*/.exec(content)![0];
  if (command !== '/poll' && command !== '/todo') return null;
  const { head, items } = headAndItems(content.replace(command, ''));
  if (command === '/poll') return { widget_type: 'poll', extra_data: { question: head, options: items } };
  const tasks = items.map((item) => {
    // A task and its description are separated by the first ': '.
    const at = item.indexOf(': ');
    return at < 0 ? { task: item.trim(), desc: '' } : { task: item.slice(0, at).trim(), desc: item.slice(at + 2).trim() };
  });
  return { widget_type: 'todo', extra_data: { task_list_title: head, tasks } };
}

/**
 * JSON as the reference's json.dumps writes it (`", "` and `": "` separators, non-ASCII as
 * \u escapes), so that a widget's stored content reads the same from both servers.
 */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`).join(', ')}}`;
  }
  const json = JSON.stringify(value) ?? 'null';
  return typeof value === 'string' ? json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : json;
}

// The reference's validators, with its messages: each names the value by its path.
type Check = (name: string, value: unknown) => void;

const fail = (message: string): never => {
  throw new ValidationFailure(message);
};

class ValidationFailure extends Error {}

const isDict = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

const checkString: Check = (name, v) => {
  if (typeof v !== 'string') fail(`${name} is not a string`);
};
const checkBool: Check = (name, v) => {
  if (typeof v !== 'boolean') fail(`${name} is not a boolean`);
};
const checkInt: Check = (name, v) => {
  if (!isInt(v)) fail(`${name} is not an integer`);
};
const checkIntIn =
  (allowed: number[]): Check =>
  (name, v) => {
    checkInt(name, v);
    if (!allowed.includes(v as number)) fail(`Invalid ${name}`);
  };
const checkIntRange =
  (min: number, max: number): Check =>
  (name, v) => {
    checkInt(name, v);
    if ((v as number) < min) fail(`${name} is too small`);
    if ((v as number) > max) fail(`${name} is too large`);
  };
const checkList =
  (item: Check): Check =>
  (name, v) => {
    if (!Array.isArray(v)) fail(`${name} is not a list`);
    (v as unknown[]).forEach((x, i) => item(`${name}[${i}]`, x));
  };

/** The reference's check_dict: the keys in order, each present and valid; `only`: no others. */
function checkDict(keys: [string, Check][], only = false): Check {
  return (name, v) => {
    if (!isDict(v)) fail(`${name} is not a dict`);
    const dict = v as Record<string, unknown>;
    for (const [key, check] of keys) {
      if (!(key in dict)) fail(`${key} key is missing from ${name}`);
      check(`${name}["${key}"]`, dict[key]);
    }
    if (only) {
      const extra = Object.keys(dict).filter((k) => !keys.some(([key]) => key === k));
      if (extra.length > 0) fail(`Unexpected arguments: ${extra.join(', ')}`);
    }
  };
}

const withType = (rest: [string, Check][]) => checkDict([['type', checkString], ...rest], true);

/** Each widget's submessages: by type, the fields, and who may send them (the author's only). */
const SUBMESSAGE_TYPES: Record<string, Record<string, { check: Check; authorOnly?: string }>> = {
  poll: {
    vote: { check: withType([['key', checkString], ['vote', checkIntIn([1, -1])]]) },
    question: { check: withType([['question', checkString]]), authorOnly: "You can't edit a question unless you are the author." },
    new_option: { check: withType([['option', checkString], ['idx', checkIntRange(0, MAX_IDX)]]) },
  },
  todo: {
    new_task: { check: withType([['key', checkIntRange(0, MAX_IDX)], ['task', checkString], ['desc', checkString], ['completed', checkBool]]) },
    strike: { check: withType([['key', checkString]]) },
    new_task_list_title: { check: withType([['title', checkString]]), authorOnly: "You can't edit the task list title unless you are the author." },
  },
};

/** POST /submessage: a widget's submessage data must fit its widget (others are not checked). */
export function checkWidgetData(widgetType: string | null, data: unknown, isAuthor: boolean): void {
  const types = widgetType === null ? undefined : SUBMESSAGE_TYPES[widgetType];
  if (!types) return;
  const name = `${widgetType} data`;
  try {
    checkDict([['type', checkString]])(name, data);
    const spec = types[(data as { type: string }).type];
    if (!spec) fail(`Unknown type for ${name}: ${(data as { type: string }).type}`);
    if (spec.authorOnly && !isAuthor) fail(spec.authorOnly);
    spec.check(name, data);
  } catch (err) {
    if (err instanceof ValidationFailure) throw badRequest(err.message);
    throw err;
  }
}

const checkZformChoices = checkDict([
  ['type', checkString],
  ['heading', checkString],
  ['choices', checkList(checkDict([['short_name', checkString], ['long_name', checkString], ['reply', checkString]]))],
]);

/**
 * The `widget_content` parameter of POST /messages (the reference's check_widget_content): a
 * zform of choices, which bots such as the trivia bot send. Errors read "Widgets: ...".
 */
export function parseWidgetContent(raw: string): WidgetContent {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw badRequest('Widgets: API programmer sent invalid JSON content');
  }
  try {
    if (!isDict(value)) fail('widget_content is not a dict');
    const widget = value as Record<string, unknown>;
    if (!('widget_type' in widget)) fail('widget_type is not in widget_content');
    if (!('extra_data' in widget)) fail('extra_data is not in widget_content');
    const extra = widget.extra_data;
    if (!isDict(extra)) fail('extra_data is not a dict');
    if (widget.widget_type !== 'zform') fail(`unknown widget type: ${String(widget.widget_type)}`);
    const data = extra as Record<string, unknown>;
    if (!('type' in data)) fail('zform is missing type field');
    if (data.type !== 'choices') fail(`unknown zform type: ${String(data.type)}`);
    checkZformChoices('extra_data', data);
    return widget as unknown as WidgetContent;
  } catch (err) {
    if (err instanceof ValidationFailure) throw badRequest(`Widgets: ${err.message}`);
    throw err;
  }
}

/** The widget type of a message's first widget submessage, as the reference's get_widget_type. */
export function widgetType(submessages: { msgType: string; content: string }[]): string | null {
  const first = submessages.find((s) => s.msgType === 'widget');
  if (!first) return null;
  try {
    const type = (JSON.parse(first.content) as { widget_type?: unknown }).widget_type;
    return typeof type === 'string' ? type : null;
  } catch {
    return null;
  }
}
