import { useEffect, useState } from 'preact/hooks';
import type { ColumnProfile, HistogramBin, Profile } from '../../../src/contract/profile.ts';
import { api } from '../api/client.ts';
import { formatNumber, locale, t } from '../i18n/i18n.ts';

const NUMERIC = new Set(['integer', 'number']);
const CHART = { widthPx: 112, heightPx: 28, gapPx: 1 };

/**
 * The profile tab of a table's preview: one row per column with its name and type, missing and
 * distinct counts, and its values: a histogram drawn from the profile's bins over min/max/mean,
 * or the most common values (four columns, to fit the inspector's width). Asked for when the tab opens (the server computes it out of process and
 * keeps it per file version), again when the file changes.
 */
export function ProfileView(props: {
  threadId: string;
  path: string;
  version: string;
  sheet?: string | undefined;
  table?: string | undefined;
}) {
  const [profile, setProfile] = useState<Profile>();
  const [error, setError] = useState<string>();
  const { threadId, path, version, sheet, table } = props;

  useEffect(() => {
    let live = true;
    setProfile(undefined);
    setError(undefined);
    api
      .profile(threadId, path, {
        ...(sheet !== undefined ? { sheet } : {}),
        ...(table !== undefined ? { table } : {}),
      })
      .then(
        (p) => live && setProfile(p),
        (e: Error) => live && setError(e.message),
      );
    return () => {
      live = false;
    };
  }, [threadId, path, version, sheet, table]);

  if (error)
    return (
      <p class="error-line pad" role="alert" id="profile-error">
        {t('profile.failed', { reason: error })}
      </p>
    );
  if (!profile)
    return (
      <p class="muted pad" id="profile-loading">
        {t('inspector.loading')}
      </p>
    );
  if (profile.columns.length === 0) return <p class="muted pad">{t('profile.noColumns')}</p>;
  const total = profile.total_rows;
  const partial = total !== null && (profile.rows_profiled < total || profile.total_rows_estimated);
  return (
    <div class="profile" id="profile">
      <p class="muted profile-note" id="profile-rows">
        {partial
          ? t('profile.firstRows', {
              count: formatNumber(profile.rows_profiled),
              total: `${profile.total_rows_estimated ? '~' : ''}${formatNumber(total)}`,
            })
          : t('profile.allRows', { count: formatNumber(profile.rows_profiled) })}
      </p>
      <div class="profile-scroll">
        <table class="profile-table">
          <thead>
            <tr>
              <th scope="col">{t('profile.column')}</th>
              <th scope="col" class="num">
                {t('profile.missing')}
              </th>
              <th scope="col" class="num">
                {t('profile.distinct')}
              </th>
              <th scope="col">{t('profile.values')}</th>
            </tr>
          </thead>
          <tbody>
            {profile.columns.map((column) => (
              <ColumnRow key={column.name} column={column} rows={profile.rows_profiled} />
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function ColumnRow(props: { column: ColumnProfile; rows: number }) {
  const { column, rows } = props;
  const share = rows > 0 ? column.missing / rows : 0;
  return (
    <tr data-column={column.name}>
      <th scope="row" title={column.name}>
        <span class="profile-name">{column.name}</span>
        <span class="profile-type">{t(`coltype.${column.type}`)}</span>
      </th>
      <td class="num profile-missing">
        <span class="count">{formatNumber(column.missing)}</span>
        <span class="muted share">{formatShare(share)}</span>
      </td>
      <td class="num profile-distinct">
        {column.distinct_capped
          ? t('profile.distinctCapped', { count: formatNumber(column.distinct) })
          : formatNumber(column.distinct)}
      </td>
      <td class="profile-values">
        {column.histogram && column.histogram.length > 0 && (
          <Histogram bins={column.histogram} name={column.name} />
        )}
        <Values column={column} />
      </td>
    </tr>
  );
}

/** Min/max/mean for numbers (min/max for dates), otherwise the most common values with their counts. */
function Values(props: { column: ColumnProfile }) {
  const { column } = props;
  const stats: Array<['min' | 'max' | 'mean', number | string]> = [];
  if (column.min !== undefined) stats.push(['min', column.min]);
  if (column.max !== undefined) stats.push(['max', column.max]);
  if (column.mean !== undefined) stats.push(['mean', column.mean]);
  // Dates are summed up by their range: their most common days say little.
  const top = NUMERIC.has(column.type) || column.type === 'date' ? [] : (column.top ?? []);
  return (
    <>
      {stats.length > 0 && (
        <dl class="profile-stats">
          {stats.map(([name, value]) => (
            <div key={name} data-stat={name}>
              <dt>{t(`profile.${name}`)}</dt>
              <dd>{formatValue(value)}</dd>
            </div>
          ))}
        </dl>
      )}
      {top.length > 0 && (
        <ol class="profile-top">
          {top.map((entry) => (
            <li key={String(entry.value)}>
              <span class="value" title={String(entry.value)}>
                {String(entry.value)}
              </span>
              <span class="muted count">{formatNumber(entry.count)}</span>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

/** A histogram as bars, each one bin's count against the largest bin's; hovering a bar names its range. */
function Histogram(props: { bins: HistogramBin[]; name: string }) {
  const { bins } = props;
  const highest = Math.max(1, ...bins.map((b) => b.count));
  const barPx = (CHART.widthPx - CHART.gapPx * (bins.length - 1)) / bins.length;
  return (
    <svg
      class="histogram"
      width={CHART.widthPx}
      height={CHART.heightPx}
      viewBox={`0 0 ${CHART.widthPx} ${CHART.heightPx}`}
      role="img"
      aria-label={t('profile.histogramOf', { column: props.name })}
    >
      <line class="axis" x1={0} x2={CHART.widthPx} y1={CHART.heightPx - 0.5} y2={CHART.heightPx - 0.5} />
      {bins.map((bin, i) => {
        // A bin with values stays visible however small it is beside the largest.
        const heightPx = bin.count === 0 ? 0 : Math.max(1.5, (bin.count / highest) * (CHART.heightPx - 2));
        return (
          <rect
            key={i}
            class="bar"
            data-count={bin.count}
            x={i * (barPx + CHART.gapPx)}
            y={CHART.heightPx - 1 - heightPx}
            width={barPx}
            height={heightPx}
          >
            <title>
              {t('profile.bin', {
                from: formatValue(bin.from),
                to: formatValue(bin.to),
                count: formatNumber(bin.count),
              })}
            </title>
          </rect>
        );
      })}
    </svg>
  );
}

function formatShare(share: number): string {
  return share.toLocaleString(locale(), { style: 'percent', maximumFractionDigits: 1 });
}

/** Whole numbers in full, others to 6 significant digits; dates and text as they are. */
function formatValue(value: number | string): string {
  if (typeof value === 'string') return value;
  if (Number.isInteger(value)) return formatNumber(value);
  return value.toLocaleString(locale(), { maximumSignificantDigits: 6 });
}
