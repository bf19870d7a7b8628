import { ApiError, badRequest } from '../../lib/errors.js';
import type { RealmState } from '../../model/realm-state.js';
import type { UserRecord } from '../../model/types.js';
import type { Shard } from '../../shard/shard.js';
import { getMessage } from '../../store/messages.js';
import { canAccessMessage } from './access.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../model/message.js';

/**
 * Narrows as clients send them: a JSON list of {operator, operand, negated?} objects, or of
 * legacy [operator, operand] string pairs. This module checks their shape with the reference's
 * messages (its NarrowParameter model) and rewrites the `with` operator; narrow-plan.ts gives the
 * operators their meaning.
 */
export type Operand = string | number | number[];

export interface NarrowTerm {
  operator: string;
  operand: Operand;
  negated: boolean;
}

/** The schema of a `narrow` parameter: JSON text of a list (or null, the empty narrow). */
export const narrowParam = { type: ['array', 'null'] };

/** Operand rules by operator, as the reference validates them before looking at meanings. */
const ID_OPERATORS = new Set(['channel', 'stream', 'id', 'sender', 'group-pm-with', 'dm-including', 'with']);
const ID_LIST_OPERATORS = new Set(['pm-with', 'dm']);

export const badNarrow = (desc: string) => new ApiError(`Invalid narrow operator: ${desc}`, { code: 'BAD_NARROW', data: { desc } });

const badCombination = (desc: string) => new ApiError(`Invalid narrow operator combination: ${desc}`, { code: 'BAD_NARROW', data: { desc } });

function shapeError(index: number, msg: string): ApiError {
  return badRequest(`Invalid narrow[${index}]: Value error, ${msg}`);
}

function checkOperand(operator: unknown, operand: unknown): Operand {
  const op = typeof operator === 'string' ? operator : '';
  const isInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
  if (ID_OPERATORS.has(op)) {
    if (typeof operand === 'string' || isInt(operand)) return operand as Operand;
    throw badRequest('operand is not a string or integer');
  }
  if (ID_LIST_OPERATORS.has(op)) {
    if (typeof operand === 'string') return operand;
    if (!Array.isArray(operand)) throw badRequest('operand is not a string or an integer list');
    operand.forEach((v, i) => {
      if (!isInt(v)) throw badRequest(`operand[${i}] is not an integer`);
    });
    return operand as number[];
  }
  if (typeof operand !== 'string') throw badRequest('operand is not a string');
  if (op === 'search' && operand.trim() === '') throw badRequest('operand cannot be blank.');
  return operand;
}

function convertTerm(elem: unknown, index: number): NarrowTerm {
  let operator: unknown;
  let operand: unknown;
  let negated: unknown = false;
  if (Array.isArray(elem)) {
    if (elem.length !== 2 || elem.some((x) => typeof x !== 'string')) throw shapeError(index, 'element is not a string pair');
    [operator, operand] = elem;
  } else if (elem !== null && typeof elem === 'object') {
    const obj = elem as Record<string, unknown>;
    if (obj.operand === undefined || obj.operand === null) throw shapeError(index, 'operand is missing');
    if (obj.operator === undefined || obj.operator === null) throw shapeError(index, 'operator is missing');
    ({ operator, operand } = obj);
    if (obj.negated !== undefined) negated = obj.negated;
  } else {
    throw shapeError(index, 'dict or list required');
  }
  const checked = checkOperand(operator, operand);
  if (typeof operator !== 'string') throw badRequest('operator is not a string');
  if (typeof negated !== 'boolean') throw badRequest('negated is not a boolean');
  // realm_empty_topic_display_name stands for the empty topic, as it does when sending.
  const topicOperand = operator === 'topic' && checked === EMPTY_TOPIC_DISPLAY_NAME ? '' : checked;
  return { operator, operand: topicOperand, negated };
}

/** The validated terms of a decoded `narrow` parameter; null and [] are the empty narrow. */
export function parseNarrow(raw: unknown): NarrowTerm[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw badRequest('narrow is not a list');
  return raw.map(convertTerm);
}

const CONVERSATION_OPERATORS = new Set(['stream', 'channel', 'topic', 'dm', 'pm-with']);

function definesConversation(terms: NarrowTerm[]): boolean {
  if (terms.some((t) => t.operator === 'dm' || t.operator === 'pm-with')) return true;
  return terms.some((t) => t.operator === 'stream' || t.operator === 'channel') && terms.some((t) => t.operator === 'topic');
}

/**
 * `with:<message id>`: the conversation that message is in now, wherever it has moved. Its
 * channel/topic or dm terms replace the narrow's own. A message the user cannot see is ignored
 * when the other terms name a conversation anyway (links into protected history keep working),
 * and is an error otherwise.
 */
export function applyWith(shard: Shard, realm: RealmState, user: UserRecord, terms: NarrowTerm[]): NarrowTerm[] {
  const withTerms = terms.filter((t) => t.operator === 'with');
  if (withTerms.length === 0) return terms;
  if (withTerms.length > 1) throw badCombination("Duplicate 'with' operators.");
  const rest = terms.filter((t) => t.operator !== 'with');
  const text = String(withTerms[0].operand).trim();
  if (!/^[+-]?\d+$/.test(text)) throw badNarrow("Invalid 'with' operator");
  const msg = getMessage(shard, realm, Number(text));
  if (!msg || !canAccessMessage(realm, user, msg)) {
    if (definesConversation(rest)) return rest;
    throw badNarrow("Invalid 'with' operator");
  }
  const others = rest.filter((t) => !CONVERSATION_OPERATORS.has(t.operator));
  const conversation: NarrowTerm[] =
    msg.kind === 'stream'
      ? [
          { operator: 'channel', operand: msg.streamId!, negated: false },
          { operator: 'topic', operand: msg.topic, negated: false },
        ]
      : [{ operator: 'dm', operand: msg.dm!, negated: false }];
  return [...conversation, ...others];
}
