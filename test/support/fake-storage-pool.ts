/**
 * A storage pool for tests that script the storage thread: it implements StoragePool, answers each
 * operation from the test's own function (typed with that operation's input and result, so a
 * script cannot answer a shape the real worker never would) and records every call in order. An
 * operation without an answer rejects, naming it.
 */
import type { StoragePool, StoragePoolStats } from '../../src/actors/storage-pool.ts';
import type {
  StorageInput,
  StorageOperation,
  StorageOutput,
  StorageTask,
} from '../../src/protocol/storage/index.ts';

/** What the test answers, operation by operation: a result, or a promise of one it settles later. */
export type FakeAnswers = {
  readonly [K in StorageOperation]?: (
    input: StorageInput<K>,
  ) => StorageOutput<K> | Promise<StorageOutput<K>>;
};

export class FakeStoragePool implements StoragePool {
  readonly calls: StorageTask[] = [];

  constructor(private readonly answers: FakeAnswers = {}) {}

  run<K extends StorageOperation>(name: K, input: StorageInput<K>): Promise<StorageOutput<K>> {
    const call: StorageTask<K> = { op: name, input };
    this.calls.push(call);
    const answer: FakeAnswers[K] = this.answers[name];
    if (answer === undefined) return Promise.reject(new Error(`unexpected operation ${name}`));
    try {
      return Promise.resolve(answer(input));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** The operations called, in order. */
  ops(): StorageOperation[] {
    return this.calls.map((call) => call.op);
  }

  /** The inputs of the calls of one operation, in order. */
  inputsOf<K extends StorageOperation>(op: K): StorageInput<K>[] {
    const isOf = (call: StorageTask): call is StorageTask<K> => call.op === op;
    return this.calls.filter(isOf).map((call) => call.input);
  }

  started(): Promise<string | null> {
    return Promise.resolve(null);
  }

  queued(): number {
    return 0;
  }

  stats(): StoragePoolStats {
    return { threads: 0, running: 0, queued: 0, completed: this.calls.length };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
