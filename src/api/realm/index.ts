import { operations as update } from './update.js';

export const operations = {
  ...update,
};
