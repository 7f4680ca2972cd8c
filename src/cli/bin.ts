import { EXIT } from './exit-codes.ts';
import { processIO } from './io.ts';
import { main } from './main.ts';

// First Ctrl-C cancels the running work cleanly; a second one exits at once.
const controller = new AbortController();
let interrupts = 0;
process.on('SIGINT', () => {
  interrupts += 1;
  if (interrupts > 1) process.exit(EXIT.interrupted);
  controller.abort();
});
process.exitCode = await main(process.argv.slice(2), processIO(controller.signal));
