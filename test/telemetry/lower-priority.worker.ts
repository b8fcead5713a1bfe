// Lowers its own thread to nice 7 and reports what /proc says of it (thread-priority.test.ts).
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { lowerThisThread } from '../../src/telemetry/thread-priority.ts';

const lowered = lowerThisThread(7);
parentPort?.postMessage({ lowered, stat: readFileSync('/proc/thread-self/stat', 'utf8') });
