import { it } from 'vitest';
import { play } from './world.js';
import { ALL_NAMED, BASELINE } from './histories.js';
it('prof', () => {
  for (const h of [...ALL_NAMED, ...BASELINE]) play(h);
  const t0 = performance.now(); let passes = 0;
  for (let i = 0; i < 3; i++) for (const h of [...ALL_NAMED, ...BASELINE]) passes += play(h).passes;
  const ms = performance.now() - t0;
  console.log(`runs ${3 * 15} ms ${ms.toFixed(0)} passes ${passes} per pass ${(ms / passes).toFixed(3)}`);
}, 100000);
