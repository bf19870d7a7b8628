import { manageOperations } from './manage.js';
import { readOperations } from './read.js';

export const operations = {
  ...readOperations,
  ...manageOperations,
};
