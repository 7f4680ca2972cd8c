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
  // Inside a shadow root CodeMirror's styles are adopted stylesheets, which the page's
  // Content-Security-Policy (style-src 'self', no inline <style>) allows.
  const shadow = parent.shadowRoot ?? parent.attachShadow({ mode: 'open' });
  shadow.replaceChildren();
  const view = new EditorView({
    doc,
    parent: shadow,
    root: shadow,
    extensions: [
      EditorView.theme({
        '&': { height: '100%', fontSize: '12.5px', backgroundColor: 'var(--code-bg)', color: 'var(--text)' },
        '.cm-gutters': {
          backgroundColor: 'var(--panel-2)',
          color: 'var(--muted)',
          borderRight: '1px solid var(--border)',
        },
        '.cm-content': { caretColor: 'var(--text)' },
        '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'rgb(127 127 127 / 0.08)' },
      }),
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
