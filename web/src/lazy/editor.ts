import { python } from '@codemirror/lang-python';
import { sql } from '@codemirror/lang-sql';
import { basicSetup, EditorView } from 'codemirror';

/**
 * Typing over a selection that spans lines is applied here rather than by the browser:
 * Chromium's own editing merges the lines and keeps their look with an inline `style`
 * attribute, which the page's Content-Security-Policy blocks and reports as an error.
 * Input handlers (bracket closing) still see the text first, as they do for the browser's.
 */
const typeOverLines = EditorView.domEventHandlers({
  beforeinput(event, view) {
    const text = event.data;
    if (event.inputType !== 'insertText' || event.isComposing || !text) return false;
    const { state } = view;
    const { from, to } = state.selection.main;
    if (state.selection.ranges.length > 1 || state.doc.lineAt(from).number === state.doc.lineAt(to).number)
      return false;
    event.preventDefault();
    const insert = () =>
      state.update(state.replaceSelection(text), { scrollIntoView: true, userEvent: 'input.type' });
    if (!state.facet(EditorView.inputHandler).some((handler) => handler(view, from, to, text, insert)))
      view.dispatch(insert());
    return true;
  },
});

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
      typeOverLines,
    ],
  });
  return {
    value: () => view.state.doc.toString(),
    set: (next) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } }),
    destroy: () => view.destroy(),
    focus: () => view.focus(),
  };
}
