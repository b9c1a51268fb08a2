/**
 * The strings of a raw line (`rawFacts.ts`): the short values the scan reports (an entry type, an
 * id, a parent id) decoded from their UTF-8 bytes, with the shortcuts that keep a scan of 50,000
 * lines from decoding the same few type names and the same ids again. Kept apart from the scan,
 * which only finds where values are: this is the only part that makes strings.
 */

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** A Buffer's own UTF-8 slice, which makes the string without a view of the bytes first. */
type Utf8Bytes = Uint8Array & { utf8Slice?: (start: number, end: number) => string };

/**
 * The text of `bytes[start, end)`, decoded as UTF-8 the way a whole file is decoded (a byte order
 * mark kept, each invalid sequence one U+FFFD as the WHATWG decoder replaces it). A Buffer decodes
 * its own slice, which replaces invalid bytes the same way and costs half as much as a view handed
 * to the decoder: `context FILE` decodes every line of the context it prints.
 */
export function decodeRange(bytes: Utf8Bytes, start: number, end: number): string {
  if (bytes.utf8Slice !== undefined) return bytes.utf8Slice(start, end);
  return decoder.decode(bytes.subarray(start, end));
}

/** A Buffer's own slice of Latin-1 bytes, which makes the string without a view of the bytes first. */
type Latin1Bytes = Uint8Array & { latin1Slice?: (start: number, end: number) => string };

/**
 * `decodeRange` of a short value, an id or a parent: nearly every one is ASCII, whose UTF-8 and
 * Latin-1 readings are the same characters, and a Buffer makes that string without the view and
 * the decoder's call, which were a tenth of the scan of 50,000 lines.
 */
export function decodeShort(bytes: Latin1Bytes, start: number, end: number): string {
  if (bytes.latin1Slice !== undefined && end - start <= 64) {
    let ascii = true;
    for (let k = start; k < end; k++) {
      if (bytes[k]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) return bytes.latin1Slice(start, end);
  }
  return decodeRange(bytes, start, end);
}

/** Whether `text` is exactly the ASCII bytes `[start, end)`. */
function sameAscii(text: string, bytes: Uint8Array, start: number, end: number): boolean {
  if (text.length !== end - start) return false;
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) !== bytes[start + k]) return false;
  return true;
}

/** Whether the bytes `[a, a + length)` and `[b, b + length)` are equal. */
export function sameBytes(bytes: Uint8Array, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (bytes[a + k] !== bytes[b + k]) return false;
  return true;
}

/**
 * The entry types seen, decoded once: every line repeats one of a few names. A string is reused
 * only for the same bytes, which decode to the same text.
 */
const types: string[] = [];

export function typeOf(bytes: Uint8Array, start: number, end: number): string {
  for (const type of types) if (sameAscii(type, bytes, start, end)) return type;
  const type = decodeRange(bytes, start, end);
  // Only short ASCII names are kept, and only a few: `sameAscii` compares them with the bytes.
  if (types.length < 32 && type.length === end - start && type.length <= 40) types.push(type);
  return type;
}

/** The value of the JSON string `[start, end)` (quotes included). */
export function stringValue(bytes: Uint8Array, start: number, end: number, escaped: boolean): string {
  return escaped ? (JSON.parse(decodeRange(bytes, start, end)) as string) : decodeRange(bytes, start + 1, end - 1);
}
