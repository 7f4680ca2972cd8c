// Worker threads do not inherit the parent's module hooks: register tsx, then run the launcher.
import { register } from 'tsx/esm/api';

register();
await import('./launcher-thread.ts');
