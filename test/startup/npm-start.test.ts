import { execFile } from 'node:child_process';
import { builtinModules } from 'node:module';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { projectRoot } from '../../src/lib/config.js';
import { tempDir } from '../cli/run.js';

/**
 * `npm start` (scripts/start.mjs) builds only when a source is newer than the last build, runs
 * an existing build when TypeScript is not installed (an install with --omit=dev), and says
 * what to do when there is neither. Run in a small project of its own: a stand-in build and a
 * stand-in server, so the test watches the decisions, not tsc.
 */
function project(t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t, 'stoa-npm-start-');
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(projectRoot, 'scripts', 'start.mjs'), join(dir, 'scripts', 'start.mjs'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'main.ts'), '// the server\n');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fake', type: 'module', scripts: { build: 'node build.mjs' } }));
  // The stand-in build writes a server that says which build it is.
  writeFileSync(
    join(dir, 'build.mjs'),
    "import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('dist/src', { recursive: true });\nwriteFileSync('dist/src/main.js', 'console.log(\"server from build \" + ' + 'Date.now() + \", args \" + JSON.stringify(process.argv.slice(2)));\\n');\nconsole.error('BUILD RAN');\n",
  );
  const at = (path: string, seconds: number) => utimesSync(join(dir, path), seconds, seconds);
  const withTypescript = (present: boolean) => {
    if (present) {
      mkdirSync(join(dir, 'node_modules', 'typescript'), { recursive: true });
      writeFileSync(join(dir, 'node_modules', 'typescript', 'package.json'), '{}');
    } else rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
  };
  const start = (args: string[] = []) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [join(dir, 'scripts', 'start.mjs'), ...args], { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
  return { dir, at, withTypescript, start };
}

t.test('npm start builds only when it must', async (t) => {
  const p = project(t);
  p.withTypescript(true);
  const first = await p.start(['--owner-email', 'a@b.c']);
  t.equal(first.code, 0, 'the first start succeeds');
  t.match(first.stderr, /no build yet: building/, 'it builds, since there is no build');
  t.match(first.stdout, /server from build \d+, args \["--owner-email","a@b\.c"\]/, 'then runs the server with the arguments given');

  const second = await p.start();
  t.notMatch(second.stderr, /BUILD RAN/, 'a second start with nothing changed does not build');
  t.match(second.stdout, /server from build/, 'and runs the server');

  const future = Date.now() / 1000 + 5;
  p.at('src/main.ts', future);
  const third = await p.start();
  t.match(third.stderr, /src\/main\.ts is newer than the build: building/, 'a changed source is built first, and named');
  t.match(third.stderr, /BUILD RAN/, 'by npm run build');
  t.equal(third.code, 0, 'and the server runs');

  p.at('src/main.ts', future + 10);
  p.withTypescript(false);
  const stale = await p.start();
  t.equal(stale.code, 0, 'without TypeScript (--omit=dev) a stale build still starts');
  t.match(stale.stderr, /newer than dist\/, but TypeScript is not installed to rebuild: running the existing build/, 'saying so');
  t.notMatch(stale.stderr, /BUILD RAN/, 'without trying to build');

  rmSync(join(p.dir, 'dist'), { recursive: true });
  const none = await p.start();
  t.equal(none.code, 1, 'with neither a build nor TypeScript, exit status 1');
  t.match(none.stderr, /dist\/ is missing and TypeScript is not installed.*\n.*npm ci && npm run build && npm prune --omit=dev/, 'saying how to get a build');
});

t.test('npm start fails when the build fails, and starts nothing', async (t) => {
  const p = project(t);
  p.withTypescript(true);
  writeFileSync(join(p.dir, 'build.mjs'), "console.error('type error'); process.exit(2);\n");
  const res = await p.start();
  t.equal(res.code, 2, 'the build\'s exit status');
  t.match(res.stderr, /the build failed; nothing was started/, 'says so');
  t.equal(res.stdout, '', 'no server ran');
});

/** Every file under a folder, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

t.test('the server and the CLI need only production dependencies', async (t) => {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));
  const allowed = new Set([...Object.keys(pkg.dependencies), ...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
  const dist = join(projectRoot, 'dist', 'src');
  const offenders: string[] = [];
  // The web app's sources are bundled at build time, by src/build/ (esbuild, a devDependency):
  // neither is loaded by the server.
  for (const file of files(dist).filter((f) => f.endsWith('.js') && !/^(web|build)\//.test(relative(dist, f)))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:^import\s[^'"]*?from\s*|^import\s*|\bimport\(\s*)['"]([^'"./][^'"]*)['"]/gm)) {
      const spec = m[1];
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      if (!allowed.has(name) && !allowed.has(spec)) offenders.push(`${relative(projectRoot, file)} imports ${spec}`);
    }
  }
  t.same(offenders, [], 'no module of dist/src imports a devDependency (npm ci --omit=dev would break it)');
});
