import { python } from '@codemirror/lang-python';
import { sql } from '@codemirror/lang-sql';
import { basicSetup, EditorView } from 'codemirror';

/** The code editor of the inspector (CodeMirror 6, loaded on first use). */
export function createEditor(
  parent: HTMLElement,
  doc: string,
  language: 'python' | 'sql',
  label: string,
): { value(): string; set(doc: string): void; destroy(): void; focus(): void } {
  const view = new EditorView({
    doc,
    parent,
    extensions: [
      basicSetup,
      language === 'sql' ? sql() : python(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': label }),
    ],
  });
  return {
    value: () => view.state.doc.toString(),
    set: (next) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } }),
    destroy: () => view.destroy(),
    focus: () => view.focus(),
  };
}
