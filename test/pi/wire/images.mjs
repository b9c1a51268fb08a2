// What the providers' image limits are measured on, read from an image's own bytes: its size in
// bytes (decoded and as base64) and its width and height, from the header of the four formats both
// Anthropic and OpenAI accept (PNG, JPEG, GIF, WebP). Written here, independent of the server's own
// reader (server/src/features/imageDiagnostics.ts), so that the wire verdicts do not check our
// rules against themselves.

/** `{width, height}` of a PNG, JPEG, GIF or WebP, or undefined when the header is not one of them. */
export function imageDimensions(bytes) {
  const b = bytes;
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.toString("latin1", 12, 16) === "IHDR") {
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (b.length >= 10 && b.toString("latin1", 0, 3) === "GIF") return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 30 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") return webpDimensions(b);
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegDimensions(b);
  return undefined;
}

function webpDimensions(b) {
  const chunk = b.toString("latin1", 12, 16);
  if (chunk === "VP8X") return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === "VP8L") {
    const bits = b.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  if (chunk === "VP8 ") return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  return undefined;
}

/** A JPEG's size from its first start-of-frame marker (SOF0 to SOF15, except DHT, JPG and DAC). */
function jpegDimensions(b) {
  let at = 2;
  while (at + 9 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1];
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = b.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: b.readUInt16BE(at + 7), height: b.readUInt16BE(at + 5) };
    }
    at += 2 + length;
  }
  return undefined;
}

/** An image as a provider receives it inline: its media type, its base64 text and its decoded bytes. */
export function inlineImage(mediaType, base64) {
  const bytes = Buffer.from(base64, "base64");
  return { mediaType, base64Bytes: Buffer.byteLength(base64, "latin1"), bytes: bytes.length, dimensions: imageDimensions(bytes) };
}

/** A `data:` URL (what OpenAI's APIs take inline) as an inline image, or undefined for a URL that is not base64 data. */
export function dataUrlImage(url) {
  const m = typeof url === "string" ? /^data:([^;,]*);base64,/.exec(url) : null;
  return m ? inlineImage(m[1], url.slice(m[0].length)) : undefined;
}
