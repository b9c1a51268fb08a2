/**
 * Lines the benchmark's byte scans are held to JSON.parse on (test/bench/scanFloor.test.ts,
 * escapedScan.test.ts): every kind of value, escape and nesting JSON allows, and the near misses
 * its grammar refuses.
 */

export const VALID_LINES = [
  '{"a":1}',
  '{"id":"x","parentId":"y"}',
  '[1,2,{"id":"z"}]',
  '{"a":-0.5e+3,"b":[true,false,null],"c":{}}',
  '  {"id" : "q" , "b":{"id":"inner"}}  ',
  '"a string"',
  '{"a":"\\u00e9 \\" \\\\ \\/ \\b \\f \\n \\r \\t"}',
  "[[[[[]]]]]",
  "0",
  '{"id":{"x":"y"},"parentId":null}',
];

export const INVALID_LINES = [
  '{"a":[1,2,]}',
  '{"a":01}',
  '{"a":"\\u00zz"}',
  '{"a":"\\q"}',
  '{"a":"\t"}',
  '{"a":tru}',
  "{} x",
  "-",
  "1.",
  "1e",
  '{"a":1,}',
  "{,}",
  '{"a":"x"',
  "[",
  '{"a" 1}',
];

/** A seeded generator of whole numbers below `n`. */
export function seededRandom(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s % n;
  };
}

/** `count` copies of `base`, each with one to three characters deleted, inserted or replaced from `alphabet` at random. */
export function mangledLines(base: string, alphabet: string, count: number, seed = 7): string[] {
  const next = seededRandom(seed);
  const lines: string[] = [];
  for (let k = 0; k < count; k++) {
    let line = base;
    for (let j = 0; j <= next(3); j++) {
      const at = next(line.length);
      const ch = alphabet[next(alphabet.length)];
      const op = next(3);
      line =
        op === 0 ? line.slice(0, at) + line.slice(at + 1) : op === 1 ? line.slice(0, at) + ch + line.slice(at) : line.slice(0, at) + ch + line.slice(at + 1);
    }
    lines.push(line);
  }
  return lines;
}
