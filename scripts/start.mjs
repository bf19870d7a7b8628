#!/usr/bin/env node
// `npm start`: builds only when a source is newer than the last build, then runs the server in
// this process (so signals and the pid in <dataDir>/stoa.pid are the server's own).
//
// The build needs the dev dependencies (TypeScript). An install without them (`npm ci
// --omit=dev`, a production image) runs the dist/ it was given: it is built before the dev
// dependencies are left out (docs/OPERATIONS.md), since dist/ is not in the repository.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const main = join(root, 'dist', 'src', 'main.js');
// V8's compiling tiers are held from here rather than from main.js (src/lib/start-tiers.ts):
// statting every source below is hot enough for TurboFan, and one compilation costs an idle
// server 3.5 MB. main.js holds them again (nothing to do) and its release ends both holds.
const tiers = join(root, 'dist', 'src', 'lib', 'start-tiers.js');
if (existsSync(tiers)) (await import(pathToFileURL(tiers).href)).holdCompilingTiers();
// Touched after each build this script runs: tsc leaves unchanged outputs as they were, so
// their times say nothing about when the build last ran.
const stamp = join(root, 'dist', '.build-stamp');
const SOURCES = ['src', 'schemas', 'tsconfig.json'];

function newestSource() {
  let newest = 0;
  let newestPath = '';
  const visit = (path) => {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (st.mtimeMs > newest) {
      newest = st.mtimeMs;
      newestPath = path;
    }
  };
  for (const s of SOURCES) visit(join(root, s));
  return { newest, newestPath };
}

const built = existsSync(main) ? Math.max(statSync(stamp, { throwIfNoEntry: false })?.mtimeMs ?? 0, statSync(join(root, 'dist', '.tsbuildinfo'), { throwIfNoEntry: false })?.mtimeMs ?? 0) : 0;
const { newest, newestPath } = newestSource();
if (newest > built) {
  const canBuild = existsSync(join(root, 'node_modules', 'typescript', 'package.json'));
  if (canBuild) {
    console.error(built === 0 ? 'stoa: no build yet: building (npm run build)' : `stoa: ${newestPath.slice(root.length + 1)} is newer than the build: building (npm run build)`);
    const res = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
    if (res.status !== 0) {
      console.error('stoa: the build failed; nothing was started');
      process.exit(res.status ?? 1);
    }
    const now = new Date();
    if (existsSync(stamp)) utimesSync(stamp, now, now);
    else writeFileSync(stamp, '');
  } else if (built === 0) {
    console.error('stoa: dist/ is missing and TypeScript is not installed (an install with --omit=dev leaves it out).\n' +
      '      Build first, then leave the dev dependencies out: npm ci && npm run build && npm prune --omit=dev');
    process.exit(1);
  } else {
    console.error(`stoa: ${newestPath.slice(root.length + 1)} is newer than dist/, but TypeScript is not installed to rebuild: running the existing build`);
  }
}
await import(pathToFileURL(main).href);
