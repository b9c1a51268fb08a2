import { describe, expect, it } from "vitest";
import { decodeRange } from "../../server/src/core/line/rawStrings";

/**
 * `decodeRange` decodes a Buffer through the Buffer's own UTF-8 slice and any other bytes through
 * `TextDecoder`: the two must give the same text for every byte sequence, valid or not, since
 * `context FILE` prints what the lines decode to.
 */
describe("decodeRange decodes a Buffer exactly as TextDecoder decodes its bytes", () => {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  // Bytes that start, continue, overlong-encode, surrogate-encode or cut short a UTF-8 sequence.
  const pool = [0x00, 0x22, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbb, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff];

  it("on every sequence of up to three of those bytes", () => {
    let compared = 0;
    for (const a of pool) {
      for (const b of pool) {
        for (const c of pool) {
          const bytes = Buffer.from([0x78, a, b, c, 0x79]);
          for (const [start, end] of [
            [0, 5],
            [1, 4],
            [1, 3],
            [2, 5],
          ] as const) {
            expect(decodeRange(bytes, start, end)).toBe(decoder.decode(bytes.subarray(start, end)));
            compared++;
          }
        }
      }
    }
    expect(compared).toBe(pool.length ** 3 * 4);
  });

  it("keeps a byte order mark and decodes a plain Uint8Array the same way", () => {
    const bytes = Buffer.from('\uFEFF{"a":"é😀"}\n', "utf8");
    const plain = new Uint8Array(bytes);
    expect(decodeRange(bytes, 0, bytes.length)).toBe('\uFEFF{"a":"é😀"}\n');
    expect(decodeRange(plain, 0, plain.length)).toBe(decodeRange(bytes, 0, bytes.length));
    expect(decodeRange(bytes, 3, bytes.length - 1)).toBe('{"a":"é😀"}');
  });
});
