/**
 * Draws the extension's icon (images/icon.png, 128×128): a session tree on a dark tile, the path
 * Pi resumes bright and the branch it leaves out faded. Written as a script, with no image
 * library, so that the picture can be changed and drawn again: `node scripts/icon.mjs`.
 */

import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";

const SIZE = 128;
const BACKGROUND = [30, 37, 48];
const ACTIVE = [94, 196, 255];
const FADED = [92, 104, 122];

/** Nodes of the tree (x, y, radius, colour) and the edges between them (from, to, colour). */
const nodes = [
  [64, 24, 11, ACTIVE],
  [64, 58, 9, ACTIVE],
  [40, 92, 9, ACTIVE],
  [90, 92, 8, FADED],
];
const edges = [
  [0, 1, ACTIVE],
  [1, 2, ACTIVE],
  [1, 3, FADED],
];

const distanceToSegment = (px, py, ax, ay, bx, by) => {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
};

/** Coverage of a shape at a signed distance: a one-pixel soft edge. */
const cover = (distance) => Math.max(0, Math.min(1, 0.5 - distance));

const pixels = Buffer.alloc(SIZE * (SIZE * 4 + 1));
for (let y = 0; y < SIZE; y++) {
  const row = y * (SIZE * 4 + 1);
  pixels[row] = 0;
  for (let x = 0; x < SIZE; x++) {
    const px = x + 0.5;
    const py = y + 0.5;
    // A rounded tile: the distance to a square inset by the corner radius, less that radius.
    const qx = Math.max(Math.abs(px - 64) - 44, 0);
    const qy = Math.max(Math.abs(py - 64) - 44, 0);
    const tile = cover(Math.hypot(qx, qy) - 20);
    let colour = BACKGROUND;
    let mix = 0;
    const paint = (c, amount) => {
      if (amount <= 0) return;
      colour = colour.map((v, i) => v + (c[i] - v) * amount);
      mix = Math.max(mix, amount);
    };
    for (const [from, to, c] of edges) paint(c, cover(distanceToSegment(px, py, nodes[from][0], nodes[from][1], nodes[to][0], nodes[to][1]) - 3));
    for (const [nx, ny, r, c] of nodes) if (r > 0) paint(c, cover(Math.hypot(px - nx, py - ny) - r));
    const at = row + 1 + x * 4;
    pixels[at] = Math.round(colour[0]);
    pixels[at + 1] = Math.round(colour[1]);
    pixels[at + 2] = Math.round(colour[2]);
    pixels[at + 3] = Math.round(255 * tile);
  }
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes) => {
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};
const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header[8] = 8; // bits per channel
header[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk("IHDR", header),
  chunk("IDAT", deflateSync(pixels, { level: 9 })),
  chunk("IEND", Buffer.alloc(0)),
]);
const out = join(dirname(dirname(fileURLToPath(import.meta.url))), "images", "icon.png");
writeFileSync(out, png);
console.log(`wrote ${out} (${png.length} bytes)`);
