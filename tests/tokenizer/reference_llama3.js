// Runs llama3-tokenizer-js, the Llama 3 tokenizer's reference. Usage:
//   node reference_llama3.js PACKAGE_DIR encode FILE   the tokens of the UTF-8 text in FILE, on one line
//                                                      separated by spaces (no <|begin_of_text|> or
//                                                      <|end_of_text|> added)
//   node reference_llama3.js PACKAGE_DIR decode FILE   the text of the token ids in FILE (separated by
//                                                      spaces), as UTF-8
'use strict';
const fs = require('fs');
const path = require('path');

const [packageDir, command, file] = process.argv.slice(2);
if (!packageDir || !['encode', 'decode'].includes(command) || !file) {
  console.error('usage: node reference_llama3.js PACKAGE_DIR encode|decode FILE');
  process.exit(2);
}
const { llama3Tokenizer } = require(path.resolve(packageDir, 'bundle/commonjs-llama3-tokenizer-with-baked-data.cjs'));
const input = fs.readFileSync(file, 'utf8');
if (command === 'encode') {
  // The whole text in one call: encode() breaks ties between equal merges by position / text length,
  // which ranks them correctly only while that is below 1, so not for a short text of long pieces.
  process.stdout.write(llama3Tokenizer.encode(input, { bos: false, eos: false }).join(' ') + '\n');
} else {
  const tokens = input.split(/\s+/).filter((s) => s.length > 0).map(Number);
  process.stdout.write(llama3Tokenizer.decode(tokens));
}
