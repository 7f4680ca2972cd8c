import { useState } from 'preact/hooks';
import { download } from '../api/client.ts';
import { t } from '../i18n/i18n.ts';
import { EMPTY_VIEW, type TableView } from '../lib/table-view.ts';

/**
 * Above a previewed table the server can query: a search over every column, a way back to
 * the plain table, and the current view downloaded as CSV (written by the server, so a
 * filtered million-row file downloads whole, up to the server's cap).
 */
export function TableTools(props: {
  view: TableView;
  onView: (view: TableView) => void;
  /** The CSV download's URL for the view as the server last showed it. */
  csvUrl: string;
  fileName: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const { view, onView } = props;
  const changed =
    view.sort !== undefined || view.search !== '' || Object.values(view.filters).some((f) => f !== '');
  return (
    <div class="table-tools">
      <input
        type="search"
        class="table-search"
        value={view.search}
        placeholder={t('table.search')}
        aria-label={t('table.search')}
        onInput={(e) => onView({ ...view, search: (e.target as HTMLInputElement).value })}
      />
      {changed && (
        <button type="button" class="ghost" onClick={() => onView(EMPTY_VIEW)}>
          {t('table.clear')}
        </button>
      )}
      <button
        type="button"
        class="ghost"
        id="table-download-csv"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(undefined);
          try {
            await download(props.csvUrl, props.fileName.replace(/\.[^.]*$/, '') + '.csv');
          } catch (e) {
            setError((e as Error).message);
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? t('inspector.loading') : t('table.downloadCsv')}
      </button>
      {error && (
        <span class="error-line" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
