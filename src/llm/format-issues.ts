import type { ZodError } from 'zod';

/** Zod issues as one line each, with the path a person can find in their file: `models[1].base_url: …`. */
export function formatIssues(error: ZodError, limit = 5): string {
  const lines = error.issues.slice(0, limit).map((issue) => {
    const path = issue.path
      .map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`))
      .join('');
    return `${path || '(top level)'}: ${issue.message}`;
  });
  if (error.issues.length > limit) lines.push(`… and ${error.issues.length - limit} more`);
  return lines.join('; ');
}
