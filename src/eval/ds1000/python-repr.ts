/**
 * Python's `repr()` of a str, character for character: DS-1000 programs embed the answer as
 * `code = <repr(answer)>`, and a `test_string` check may look at the program text, so the
 * literal must be the one the authors' harness writes.
 */
export function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === quote || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (!isPrintable(code)) out += escapeWide(code);
    else out += char;
  }
  return out + quote;
}

function escapeWide(code: number): string {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\U${code.toString(16).padStart(8, '0')}`;
}

/**
 * Python's `str.isprintable()` for one code point, close enough for source text: not a
 * control, format, surrogate, private-use, unassigned or separator character (the space is printable).
 */
function isPrintable(code: number): boolean {
  if (code === 0x20) return true;
  const char = String.fromCodePoint(code);
  return !/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u.test(char);
}
