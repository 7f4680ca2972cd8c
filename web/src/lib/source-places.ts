import type { GroundingSource } from '../../../src/agent/grounding/types.ts';
import type { Step } from '../../../src/agent/view/steps.ts';
import { t } from '../i18n/i18n.ts';
import type { SourcePlace } from './grounding-marks.ts';

/**
 * Says where a grounded number came from as the user sees the run (issue 31, defect 10):
 * "step 3, line 2" — the cell's number among the run's code steps, and the line of its output
 * (or code) the number was found on — instead of an internal cell id.
 */
export function sourcePlaces(steps: readonly Step[]): SourcePlace {
  return (source: GroundingSource) => {
    if (!source.cell_id) return undefined;
    let number = 0;
    for (const step of steps) {
      if (step.kind !== 'cell') continue;
      number += 1;
      if (step.cellId !== source.cell_id) continue;
      const text = source.in === 'code' ? step.code : (step.result?.output ?? step.output);
      const excerpt = source.excerpt?.trim();
      const line = excerpt ? text.split('\n').findIndex((l) => l.includes(excerpt)) + 1 : 0;
      return line > 0
        ? t('grounding.stepLine', { step: number, line })
        : t('grounding.step', { step: number });
    }
    return undefined;
  };
}
