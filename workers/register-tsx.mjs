// Worker-thread preload: registers tsx so the thread can load TypeScript. Node 20 does not carry
// the main thread's `--import tsx` hooks into worker threads.
import { register } from 'tsx/esm/api';

register();
