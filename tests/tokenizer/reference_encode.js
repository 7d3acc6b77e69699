// Prints the tokens that gpt-3-encoder's own Encoder.js gives for a UTF-8 file, on one line
// separated by spaces. Usage: node reference_encode.js BPE_DIR FILE
'use strict';
const fs = require('fs');
const path = require('path');

const [bpeDir, file] = process.argv.slice(2);
if (!bpeDir || !file) {
  console.error('usage: node reference_encode.js BPE_DIR FILE');
  process.exit(2);
}
const { encode } = require(path.resolve(bpeDir, 'Encoder.js'));
const text = fs.readFileSync(file, 'utf8');

// encode() concatenates arrays once per regex match, which is quadratic on a whole book, so the
// text goes in line by line, cut only just after a "\n" with non-space on both sides. The regex
// matches that "\n" alone both in the whole text and at the end of the piece, and has no
// lookbehind, so the matches (and tokens) are exactly those of encode(text).
const tokens = [];
for (const piece of text.split(/(?<=\S\n)(?=\S)/u)) {
  for (const token of encode(piece)) tokens.push(token);
}
process.stdout.write(tokens.join(' ') + '\n');
