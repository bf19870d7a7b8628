import type { Etcd3 } from 'etcd3';
import type { ResolvedConfig } from '../lib/config.js';
import type { ShardPool } from '../host/pool.js';
import type { Directory } from '../store/directory.js';
import type { MoveRecord, Placement, Versioned } from './etcd.js';
import type { IdBlocks } from './ids.js';

/** What the move driver (moves.ts) needs of its node (node.ts). */
export interface NodeContext {
  readonly id: string;
  readonly config: ResolvedConfig;
  readonly directory: Directory;
  readonly pool: ShardPool;
  readonly client: Etcd3;
  readonly secret: string;
  readonly ids: IdBlocks | null;
  readonly placements: Map<string, Versioned<Placement>>;
  readonly moves: Map<string, Versioned<MoveRecord>>;
  owns(subdomain: string): boolean;
  refreshRealms(): void;
  reconcile(): Promise<void>;
}
