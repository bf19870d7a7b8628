import { manageOperations } from './manage.js';
import { readOperations } from './read.js';
import { updateOperations } from './update.js';

export const operations = {
  ...readOperations,
  ...manageOperations,
  ...updateOperations,
};
