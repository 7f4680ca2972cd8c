import { dabstepSuite } from './dabstep/suite.ts';
import { dabstepResearchSuite } from './dabstep-research/suite.ts';
import { ds1000Suite } from './ds1000/suite.ts';
import { dsbenchAnalysisSuite } from './dsbench/suite.ts';
import type { EvalTask, Suite } from './suite.ts';
import { tablebenchSuite } from './tablebench/suite.ts';

/** Every suite `analyst eval` knows, by name. */
export const SUITES: Record<string, () => Suite<EvalTask>> = {
  ds1000: ds1000Suite,
  tablebench: tablebenchSuite,
  dabstep: dabstepSuite,
  'dsbench-analysis': dsbenchAnalysisSuite,
  'dabstep-research': dabstepResearchSuite,
};
