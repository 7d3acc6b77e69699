// Prints how JavaScript's regex classes \p{L}, \p{N} and \s sort every Unicode scalar value, as
// lines "FIRST LAST CLASS" (hex code points, CLASS one of L N S O) covering runs of one class.
// Usage: node reference_classes.js
'use strict';
const classOf = (s) => (/\s/u.test(s) ? 'S' : /\p{L}/u.test(s) ? 'L' : /\p{N}/u.test(s) ? 'N' : 'O');
const lines = [];
let first = 0;
let current = classOf(String.fromCodePoint(0));
const flush = (last) => lines.push(`${first.toString(16)} ${last.toString(16)} ${current}`);
for (let c = 1; c <= 0x10ffff; c++) {
  if (c >= 0xd800 && c <= 0xdfff) continue;  // surrogates are not in UTF-8 text
  const cls = classOf(String.fromCodePoint(c));
  if (cls !== current || c === 0xe000) {
    flush(c === 0xe000 ? 0xd7ff : c - 1);
    first = c;
    current = cls;
  }
}
flush(0x10ffff);
process.stdout.write(lines.join('\n') + '\n');
