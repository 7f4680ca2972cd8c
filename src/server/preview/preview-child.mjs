// A preview process runs TypeScript like the server: register tsx's loader, then the program.
import { register } from 'tsx/esm/api';

register();
await import('./preview-child.ts');
