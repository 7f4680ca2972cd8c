import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Thread } from '../api/types.ts';
import { formatWhen, locale, t } from '../i18n/i18n.ts';
import { announce } from '../state/changes.ts';
import { useThreadList } from '../state/use-thread-list.ts';

/** Threads kept on the server, newest first, searchable by title; rename in place, delete with a confirmation. */
export function ThreadList(props: {
  currentId: string | undefined;
  onOpen: (id: string | undefined) => void;
  onRenamed: (thread: Thread) => void;
  onDelete: (thread: Thread) => void;
  searchRef: { current: HTMLInputElement | null };
}) {
  const [query, setQuery] = useState('');
  const threads = useThreadList(query);
  const [editing, setEditing] = useState<string>();

  const rename = async (thread: Thread, title: string) => {
    setEditing(undefined);
    if (title.trim() === (thread.title ?? '')) return;
    const updated = await api.updateThread(thread.id, { title: title.trim() || null });
    announce('threads');
    props.onRenamed(updated);
  };

  return (
    <nav class="threads" aria-label={t('nav.threads')}>
      <div class="threads-head">
        <input
          ref={props.searchRef}
          type="search"
          class="search"
          placeholder={t('threads.search')}
          aria-label={t('threads.search')}
          value={query}
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
        />
        <button type="button" class="primary small" id="new-thread" onClick={() => props.onOpen(undefined)}>
          {t('threads.new')}
        </button>
      </div>
      <ul class="thread-items">
        {threads.length === 0 && (
          <li class="muted empty">{query ? t('threads.noMatch') : t('threads.empty')}</li>
        )}
        {threads.map((thread) => (
          <li key={thread.id} class={thread.id === props.currentId ? 'current' : ''}>
            {editing === thread.id ? (
              <input
                class="rename"
                aria-label={t('threads.rename')}
                value={thread.title ?? ''}
                ref={(el) => el?.focus()}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') void rename(thread, (e.target as HTMLInputElement).value);
                  if (e.key === 'Escape') {
                    e.stopPropagation();
                    setEditing(undefined);
                  }
                }}
                onBlur={(e) => void rename(thread, (e.target as HTMLInputElement).value)}
              />
            ) : (
              <a
                href={`/t/${thread.id}`}
                class="thread-link"
                aria-current={thread.id === props.currentId ? 'page' : undefined}
                onClick={(e) => {
                  e.preventDefault();
                  props.onOpen(thread.id);
                }}
              >
                <span class="title">{thread.title || t('threads.untitled')}</span>
                <span class="muted when">
                  {thread.busy && <span class="dot running" title={t('threads.running')} />}
                  <span title={new Date(thread.updated_at * 1000).toLocaleString(locale())}>
                    {formatWhen(thread.updated_at)}
                  </span>
                </span>
              </a>
            )}
            <span class="row-actions">
              <button
                type="button"
                class="ghost icon"
                title={t('threads.rename')}
                aria-label={t('threads.rename')}
                onClick={() => setEditing(thread.id)}
              >
                ✎
              </button>
              <button
                type="button"
                class="ghost icon"
                title={t('threads.delete')}
                aria-label={t('threads.delete')}
                onClick={() => props.onDelete(thread)}
              >
                ×
              </button>
            </span>
          </li>
        ))}
      </ul>
    </nav>
  );
}
