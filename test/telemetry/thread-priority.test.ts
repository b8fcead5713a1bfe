import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { workerExecArgv } from '../../src/actors/worker-entry.ts';

/** Field 19 of /proc/<pid>/task/<tid>/stat is the thread's nice value. */
const niceOf = (stat: string): number =>
  Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);

void t.test('a worker thread lowers its own priority, not the process', async (t) => {
  if (process.platform !== 'linux') {
    t.comment('thread priorities are set through /proc on Linux only');
    return;
  }
  const before = niceOf(readFileSync('/proc/thread-self/stat', 'utf8'));
  // From source, a worker thread needs the tsx preload the service's own threads get.
  const worker = new Worker(new URL('./lower-priority.worker.ts', import.meta.url), {
    execArgv: workerExecArgv(),
  });
  const answer = await new Promise<{ lowered: boolean; stat: string }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  t.equal(answer.lowered, true, 'the call succeeded');
  t.equal(niceOf(answer.stat), 7, 'the worker thread runs at nice 7');
  t.equal(
    niceOf(readFileSync('/proc/thread-self/stat', 'utf8')),
    before,
    'this thread did not move',
  );
});
