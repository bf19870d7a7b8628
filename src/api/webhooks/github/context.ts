import { field } from '../registry.js';

/** A GitHub payload, read through field() (required) and optional(). */
export type P = Record<string, any>;

/** What every GitHub message body is made from. */
export interface Ctx {
  p: P;
  /** The URL named a topic, so the title goes into the message (the topic no longer has it). */
  includeTitle: boolean;
  /** include_repository_name: push messages name the repository. */
  includeRepositoryName: boolean;
}

export const senderName = (p: P) => field<string>(p, 'sender', 'login');
export const senderUrl = (p: P) => field<string>(p, 'sender', 'html_url');
export const repoName = (p: P) => field<string>(p, 'repository', 'name');
export const repoFullName = (p: P) => field<string>(p, 'repository', 'full_name');
export const repoUrl = (p: P) => field<string>(p, 'repository', 'html_url');
export const branchFromRef = (ref: string) => ref.replace(/^refs\/heads\//, '');
export const tagFromRef = (ref: string) => ref.replace(/^refs\/tags\//, '');
