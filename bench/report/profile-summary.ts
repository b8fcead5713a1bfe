/**
 * Reads the V8 .cpuprofile files a PROFILE=1 run wrote (one per thread) and prints each thread's
 * top functions by self time. Also runnable: `node --import tsx bench/report/profile-summary.ts DIR`.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { flagKnob } from '../harness/knobs.ts';
import { markdownTable, num } from './print-table.ts';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const ROOT = pathToFileURL(path.resolve('.')).href;

/** With PROFILE=1: a fresh directory under .scratch/profiles (git-ignored) for this run. */
export const profileDirFor = (bench: string): string | undefined =>
  flagKnob('PROFILE')
    ? path.resolve(
        '.scratch',
        'profiles',
        `${bench}-${new Date().toISOString().replace(/[:.]/g, '-')}`,
      )
    : undefined;

const frameName = (frame: CallFrame): string => {
  const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
  if (frame.url === '') return name;
  const where = frame.url.startsWith(ROOT) ? frame.url.slice(ROOT.length + 1) : frame.url;
  const short = where.replace(/^.*node_modules\//, '');
  return `${name} ${short}:${frame.lineNumber + 1}`;
};

/** Which thread wrote this profile: the thread id is in the file name (CPU.<date>.<time>.<pid>.<tid>.<seq>). */
const threadOf = (profile: CpuProfile, file: string): string => {
  if (file.split('.')[4] === '0') return 'front (main) thread';
  const urls = profile.nodes.map((n) => n.callFrame.url);
  const storage = (u: string): boolean =>
    u.endsWith('workers/storage.worker.ts') || u.includes('/workers/storage/');
  if (urls.some(storage)) return 'storage worker';
  if (urls.some((u) => u.endsWith('workers/metrics-actor.worker.ts'))) return 'metrics actor';
  if (urls.some((u) => u.endsWith('esm/worker'))) return 'module loader (tsx hooks)';
  return 'worker thread';
};

/** Threads busier than this get a table; the others one line. */
const MIN_BUSY_SHARE = 0.03;

export async function summariseProfiles(dir: string, top = 15): Promise<string> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).sort();
  const parts: string[] = [];
  for (const file of files) {
    const profile = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map<string, number>();
    let total = 0;
    profile.samples.forEach((id, i) => {
      const delta = profile.timeDeltas[i] ?? 0;
      const node = byId.get(id);
      if (node === undefined) return;
      const name = frameName(node.callFrame);
      self.set(name, (self.get(name) ?? 0) + delta);
      total += delta;
    });
    const idle = self.get('(idle)') ?? 0;
    self.delete('(idle)');
    const busy = total - idle;
    const heading =
      `### ${threadOf(profile, file)} (${file}): ${num(total / 1e6, 1)} s sampled, ` +
      `busy ${num(busy / 1000)} ms (${num((100 * busy) / total, 1)} %)`;
    if (busy < MIN_BUSY_SHARE * total) {
      parts.push(heading);
      continue;
    }
    const rows = [...self.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => [name, num(us / 1000), num((100 * us) / busy, 1)]);
    parts.push(
      `${heading}\n\n` +
        markdownTable(
          [
            { title: 'function (self time)' },
            { title: 'ms', align: 'right' },
            { title: '% of busy', align: 'right' },
          ],
          rows,
        ),
    );
  }
  return parts.join('\n\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = process.argv[2];
  if (dir === undefined) throw new Error('usage: profile-summary.ts DIR [TOP]');
  process.stdout.write(`${await summariseProfiles(dir, Number(process.argv[3] ?? 15))}\n`);
}
