import type { Operation } from './operation.js';
import { operations as server } from './server/index.js';
import { operations as users } from './users/index.js';

/** Every operation the shards run, by the name the route table (src/routes.ts) uses. */
export const operations: Record<string, Operation<any>> = {
  ...server,
  ...users,
};
