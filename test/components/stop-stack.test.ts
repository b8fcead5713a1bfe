// The stop stack (issue 31): one order for a failed start and for the shutdown, newest first; a
// stop that throws is logged and the others still run; a part's own stack undoes a failed start.
import t from 'tap';
import { createStopStack, startPart } from '../../src/components/stop-stack.ts';

const recorder = () => {
  const warnings: { part: unknown; msg: string }[] = [];
  return {
    warnings,
    log: {
      warn: (obj: { part?: unknown }, msg: string) => void warnings.push({ part: obj.part, msg }),
    },
  };
};

t.test('stops newest first, each awaited, once', async (t) => {
  const { log } = recorder();
  const stack = createStopStack(log as never);
  const order: string[] = [];
  for (const name of ['database', 'storage', 'front']) {
    stack.push(name, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      order.push(name);
    });
  }
  await Promise.all([stack.stopAll(), stack.stopAll()]);
  await stack.stopAll();
  t.same(order, ['front', 'storage', 'database']);
});

t.test('a stop that throws is logged, and the older ones still stop', async (t) => {
  const { log, warnings } = recorder();
  const stack = createStopStack(log as never);
  const order: string[] = [];
  stack.push('database', () => void order.push('database'));
  stack.push('storage', () => {
    throw new Error('pool would not close');
  });
  stack.push('front', () => void order.push('front'));
  await stack.stopAll();
  t.same(order, ['front', 'database']);
  t.same(warnings, [{ part: 'storage', msg: 'stopping storage failed; stopping the rest' }]);
});

t.test(
  'a failed start at step N stops steps N-1..1 in reverse and throws the original',
  async (t) => {
    const { log } = recorder();
    const order: string[] = [];
    const failure = new Error('port taken');
    const started = startPart(log as never, async (own) => {
      for (const name of ['one', 'two', 'three']) own.push(name, () => void order.push(name));
      throw failure;
    });
    await t.rejects(started, failure);
    t.same(order, ['three', 'two', 'one']);
  },
);

t.test('a start that succeeds stops nothing until asked', async (t) => {
  const { log } = recorder();
  const order: string[] = [];
  const value = await startPart(log as never, async (own) => {
    own.push('one', () => void order.push('one'));
    return 42;
  });
  t.equal(value, 42);
  t.same(order, []);
});
