/**
 * DS-1000's answer cleaning, as its authors' `postprocess` does it (xlang-ai/DS-1000
 * test_ds1000.py; the steps are listed in ../shared/benchmarks/README.md), in this order:
 * the first element of a list; the text before `</code>`; every "```python" removed, then
 * the text before the first remaining "```"; the text before "\nEND SOLUTION"; every `<code>`
 * removed. Nothing else (no trimming: the program is assembled with the text as it is).
 */
export function cleanAnswer(raw: string | readonly string[] | null | undefined): string {
  if (raw === null || raw === undefined) return '';
  let code = typeof raw === 'string' ? raw : (raw[0] ?? '');
  code = code.split('</code>')[0]!;
  code = code.replaceAll('```python', '');
  code = code.split('```')[0]!;
  code = code.split('\nEND SOLUTION')[0]!;
  code = code.replaceAll('<code>', '');
  return code;
}
