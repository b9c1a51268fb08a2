/**
 * How a session file's bytes are encoded. Pi reads sessions as UTF-8; UTF-16 (what Windows
 * PowerShell's `Out-File` and `>` write) is told from the first bytes, so that `check`, which reads
 * the bytes, and the server, which reads a file's first bytes when it is opened, tell it alike.
 */

export type Encoding = "utf-8" | "utf-16le" | "utf-16be";

export interface Decoded {
  text: string;
  encoding: Encoding;
  /** For UTF-16: whether the file starts with its byte order mark (FF FE or FE FF). */
  bom: boolean;
  /** Whether `text` encodes back to exactly these bytes as UTF-8 (so it can be rewritten). */
  lossless: boolean;
}

/** Which UTF-16 the bytes are, told from the first 4 KiB; undefined for anything else (read as UTF-8, as Pi reads it). */
export function utf16Of(bytes: Uint8Array): "utf-16le" | "utf-16be" | undefined {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  // Without a mark: in the first 4 KiB, many NULs at odd offsets and almost none at even ones is
  // little-endian ASCII, and the reverse big-endian.
  const pairs = Math.min(bytes.length, 4096) >> 1;
  if (pairs < 1) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < pairs; i++) {
    if (bytes[2 * i] === 0) evenZeros++;
    if (bytes[2 * i + 1] === 0) oddZeros++;
  }
  if (oddZeros >= pairs * 0.3 && evenZeros <= pairs * 0.02) return "utf-16le";
  if (evenZeros >= pairs * 0.3 && oddZeros <= pairs * 0.02) return "utf-16be";
  return undefined;
}

/** How an encoding is named in messages. */
export function encodingName(decoded: Pick<Decoded, "encoding" | "bom">): string {
  const order = decoded.encoding === "utf-16le" ? "little-endian" : "big-endian";
  return `UTF-16 (${order}, ${decoded.bom ? "with" : "without"} a byte order mark)`;
}

/** What the report needs of a file's encoding (a streamed file's text is never held whole). */
export type Encoded = Omit<Decoded, "text">;

/** The encoding of a file from its first bytes (at least its first 4 KiB, as `utf16Of` reads them). */
export function headEncoding(head: Uint8Array): Encoded {
  const encoding = utf16Of(head) ?? "utf-8";
  const bom = encoding !== "utf-8" && head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff));
  // Whether a UTF-8 file decodes losslessly needs all of it; only `check --fix` cares, and it reads all of it.
  return { encoding, bom, lossless: encoding === "utf-8" };
}
