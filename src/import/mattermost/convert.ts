import type { Progress } from '../progress.js';
export async function convertMattermost(root: string, out: string, opts: { progress: Progress; team?: string }): Promise<string> {
  void root; void opts;
  return out;
}
