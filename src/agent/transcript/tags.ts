import type { SectionTag } from '../events.ts';

/**
 * DeepAnalyze's tagged transcript: `<Analyze>…</Analyze><Code>…</Code><Execute>…</Execute>`
 * and so on. Models stop mid-tag, forget to close tags and leave odd code fences; these
 * helpers read such text leniently and write it back repaired.
 */

export const SECTION_TAGS: readonly SectionTag[] = [
  'Analyze',
  'Understand',
  'Code',
  'Execute',
  'File',
  'Answer',
];

export interface Section {
  tag: SectionTag;
  content: string;
  /** False when the closing tag was missing (the text ran to the next tag or the end). */
  closed: boolean;
}

const TAG_PATTERN = new RegExp(`<(/?)(${SECTION_TAGS.join('|')})>`, 'g');

/**
 * Splits a transcript into sections. Text outside any tag is kept as an `Analyze` section
 * (models sometimes think aloud before their first tag). An opening tag while another is
 * open closes the open one.
 */
export function parseSections(transcript: string): Section[] {
  const sections: Section[] = [];
  let open: { tag: SectionTag; start: number } | undefined;
  let cursor = 0;
  const pushLoose = (text: string) => {
    if (text.trim()) sections.push({ tag: 'Analyze', content: text.trim(), closed: true });
  };
  for (const match of transcript.matchAll(TAG_PATTERN)) {
    const [whole, slash, name] = match;
    const tag = name as SectionTag;
    const index = match.index ?? 0;
    if (slash === '') {
      if (open) sections.push({ tag: open.tag, content: transcript.slice(open.start, index), closed: false });
      else pushLoose(transcript.slice(cursor, index));
      open = { tag, start: index + whole.length };
    } else if (open && open.tag === tag) {
      sections.push({ tag, content: transcript.slice(open.start, index), closed: true });
      open = undefined;
    } else if (!open) {
      // A stray closing tag: keep the text before it, drop the tag.
      pushLoose(transcript.slice(cursor, index));
    }
    cursor = index + whole.length;
  }
  if (open) sections.push({ tag: open.tag, content: transcript.slice(open.start), closed: false });
  else pushLoose(transcript.slice(cursor));
  return sections.map((s) => (s.tag === 'Code' ? s : { ...s, content: trimBlankLines(s.content) }));
}

/** The Python in a `<Code>` body: an optional ```python fence stripped, even an unclosed one. */
export function extractCode(body: string): string {
  let code = body.replace(/^\s*\n/, '').trimEnd();
  const fenced = /^\s*```[a-zA-Z0-9_+-]*[ \t]*\n([\s\S]*?)(?:\n\s*```\s*)?$/.exec(code);
  if (fenced) code = fenced[1] ?? '';
  return code.replace(/\n\s*```\s*$/, '');
}

/** Writes sections back as a well-formed transcript: every tag closed, fences balanced. */
export function renderSections(sections: Section[]): string {
  return sections
    .map((section) => {
      let content = section.content;
      if ((content.match(/```/g)?.length ?? 0) % 2 === 1) content = `${content.trimEnd()}\n\`\`\``;
      return `<${section.tag}>\n${trimNewlines(content)}\n</${section.tag}>`;
    })
    .join('\n');
}

/** Repairs a transcript for display and export: unclosed tags and odd code fences. */
export function repairTranscript(transcript: string): string {
  return renderSections(parseSections(transcript));
}

/** The body of the last `<Answer>` section, if the transcript has one. */
export function answerOf(transcript: string): string | undefined {
  const answers = parseSections(transcript).filter((s) => s.tag === 'Answer');
  return answers.length ? answers[answers.length - 1]!.content.trim() : undefined;
}

function trimBlankLines(text: string): string {
  return text.trim();
}

/** Newlines at either end removed (a loop: a regex like /\n+$/ is quadratic on long runs). */
function trimNewlines(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === '\n') start++;
  while (end > start && text[end - 1] === '\n') end--;
  return text.slice(start, end);
}
