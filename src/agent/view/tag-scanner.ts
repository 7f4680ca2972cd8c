import type { SectionTag } from '../events.ts';
import { SECTION_TAGS } from '../transcript/tags.ts';

/** A piece of streamed tagged text: plain text, or one of DeepAnalyze's tags. */
export type TagToken =
  | { kind: 'text'; text: string }
  | { kind: 'open' | 'close'; tag: SectionTag; raw: string };

const TAGS = SECTION_TAGS.flatMap((tag) => [`<${tag}>`, `</${tag}>`]);

/**
 * Finds `<Analyze>`, `</Code>` and the other section tags in text that arrives in pieces.
 * A model streams a few characters at a time, so a tag can be split over deltas
 * (`<Exe` + `cute>`): a trailing piece that could still become a tag is held back until
 * the next push (or `flush`). Any other `<` is text.
 */
export class TagScanner {
  private held = '';

  push(text: string): TagToken[] {
    const input = this.held + text;
    this.held = '';
    const tokens: TagToken[] = [];
    let plain = '';
    let i = 0;
    while (i < input.length) {
      const at = input.indexOf('<', i);
      if (at === -1) {
        plain += input.slice(i);
        break;
      }
      plain += input.slice(i, at);
      const rest = input.slice(at);
      const tag = TAGS.find((t) => rest.startsWith(t));
      if (tag) {
        if (plain) tokens.push({ kind: 'text', text: plain });
        plain = '';
        const closing = tag.startsWith('</');
        tokens.push({
          kind: closing ? 'close' : 'open',
          tag: tag.slice(closing ? 2 : 1, -1) as SectionTag,
          raw: tag,
        });
        i = at + tag.length;
      } else if (TAGS.some((t) => t.startsWith(rest))) {
        this.held = rest; // the start of a tag, cut at the end of this delta
        break;
      } else {
        plain += '<';
        i = at + 1;
      }
    }
    if (plain) tokens.push({ kind: 'text', text: plain });
    return tokens;
  }

  /** What was held back, as text (the stream ended inside something that was not a tag). */
  flush(): TagToken[] {
    const rest = this.held;
    this.held = '';
    return rest ? [{ kind: 'text', text: rest }] : [];
  }
}
