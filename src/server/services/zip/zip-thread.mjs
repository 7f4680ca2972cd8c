// Worker threads do not inherit the parent's module hooks: register tsx, then run the worker.
import { register } from 'tsx/esm/api';

register();
await import('./zip-thread.ts');
