#!/usr/bin/env node
import { holdCompilingTiers } from './lib/start-tiers.js';

// Before anything else loads: the start runs without V8's compiling tiers, which come back with
// the first client (lib/start-tiers.ts). Hence the server's own modules load from here, below.
const release = holdCompilingTiers();
const { serve } = await import('./serve.js');
serve(release);
