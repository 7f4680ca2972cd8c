import { useEffect, useState } from 'preact/hooks';
import type { CellStep } from '../../../src/agent/view/steps.ts';

/** What the inspector shows: a file's preview or a cell's code, each remembered while the other shows. */
export interface InspectorView {
  tab: 'preview' | 'code';
  path?: string;
  cell?: CellStep;
}

/**
 * The inspector's file and cell, empty again when `threadId` changes. `onShow` hears when a file
 * or a cell is opened in it (on a narrow screen its pane comes to the front).
 */
export function useInspector(
  threadId: string | undefined,
  onShow: () => void,
): {
  view: InspectorView;
  setTab(tab: InspectorView['tab']): void;
  openFile(path: string): void;
  inspectCell(cell: CellStep): void;
} {
  const [view, setView] = useState<InspectorView>({ tab: 'preview' });
  useEffect(() => setView({ tab: 'preview' }), [threadId]);
  return {
    view,
    setTab: (tab) => setView((now) => ({ ...now, tab })),
    openFile: (path) => {
      setView((now) => ({ tab: 'preview', path, cell: now.cell }));
      onShow();
    },
    inspectCell: (cell) => {
      setView((now) => ({ tab: 'code', path: now.path, cell }));
      onShow();
    },
  };
}
