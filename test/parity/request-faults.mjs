// Fault fixtures for what the provider receives (issue 13), one fault each, written by generate.mjs
// next to its FAULTS table and probed the same way: the expectation's `provider` field records
// what the real pipeline (convertToLlm, then transformMessages for the resumed model) gives.
//
// `h` carries generate.mjs's builders (HEADER, T, MS, lines, base, userE, asstE, toolCallE,
// toolResultE, modelChangeE, compactionE); the healthy conversation `base()` is
// m0 u1 a1(toolCall toolu_01) r1 a2 u2 a3 with ids a0000001 ... a0000007.

/** A 1x1 PNG, the smallest image every provider decodes. */
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/**
 * The first bytes of a 9000x1200 PNG (signature and IHDR, no pixels): enough for a provider's size
 * check, and for ours, which reads only the header; Pi passes it on as stored.
 */
const PNG_9000X1200_HEAD = "iVBORw0KGgoAAAANSUhEUgAAIygAAASwCAIAAAAAAAAA";

/** The first bytes of a PNG of `width` x `height` px (signature and IHDR, no pixels), as base64. */
function pngHead(width, height) {
  const b = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 0, 0, 0, 0, 0, 8, 2, 0, 0, 0]);
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b.toString("base64");
}

/** Issue 13's example, verbatim: Anthropic rejects its request, since the tool result's call is dropped. */
const ISSUE_13_EXAMPLE = [
  '{"type":"session","version":3,"id":"019b0000-0000-7000-8000-0000000000aa","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/dev/p"}',
  '{"type":"message","id":"a0000001","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"run ls","timestamp":1772445601000}}',
  '{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01","name":"bash","arguments":{"command":"ls"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"aborted","timestamp":1772445602000}}',
  '{"type":"message","id":"a0000003","parentId":"a0000002","timestamp":"2026-03-02T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"toolu_01","toolName":"bash","content":[{"type":"text","text":"a b c"}],"isError":false,"timestamp":1772445603000}}',
  '{"type":"message","id":"a0000004","parentId":"a0000003","timestamp":"2026-03-02T10:00:04.000Z","message":{"role":"user","content":"go on","timestamp":1772445604000}}',
];

export function requestFaults(h) {
  const { HEADER, T, MS, lines, base, userE, asstE, toolCallE, toolResultE, modelChangeE, compactionE } = h;
  const reparent = (entry, parentId) => ({ ...entry, parentId });
  const withMessage = (entry, patch) => ({ ...entry, message: { ...entry.message, ...patch } });
  /** The healthy conversation, a switch to `provider`/`model`, and a user message with `count` 1x1 images. */
  const imagesForModel = (provider, model, text, count) =>
    lines(HEADER, ...base(), modelChangeE("a0000008", "a0000007", 12, provider, model), {
      type: "message",
      id: "a0000009",
      parentId: "a0000008",
      timestamp: T(13),
      message: {
        role: "user",
        content: [{ type: "text", text }, ...Array.from({ length: count }, () => ({ type: "image", data: PNG_1X1, mimeType: "image/png" }))],
        timestamp: MS(13),
      },
    });
  return [
    [
      "fault-tool-result-after-aborted-call",
      "issue 13's example: a tool result whose call Pi drops (the call's message stopped with `aborted`)",
      () => `${ISSUE_13_EXAMPLE.join("\n")}\n`,
    ],
    [
      "fault-tool-result-after-user",
      "a tool result after the user message that interrupted its call",
      () => {
        const b = base();
        return lines(
          HEADER,
          ...b.slice(0, 3),
          userE("a0000004", "a0000003", 5, "Stop, read src/math.test.ts instead."),
          toolResultE("a0000005", "a0000004", 6, "toolu_01", "read", "export const add = (a, b) => a - b;"),
          asstE("a0000006", "a0000005", 8, "The test expects add(1, 2) to be 3."),
        );
      },
    ],
    [
      "fault-tool-result-after-assistant",
      "a tool result after another assistant turn",
      () => {
        const b = base();
        return lines(
          HEADER,
          ...b.slice(0, 3),
          asstE("a0000004", "a0000003", 5, "Reading the file now."),
          toolResultE("a0000005", "a0000004", 6, "toolu_01", "read", "export const add = (a, b) => a - b;"),
          asstE("a0000006", "a0000005", 8, "add() subtracts; it should add. Fixed."),
        );
      },
    ],
    [
      "fault-compaction-keeps-tool-result",
      "a compaction whose kept range starts on a tool result (its call is summarised away)",
      () =>
        lines(
          HEADER,
          ...base(),
          compactionE("a0000008", "a0000007", 12, "a0000004"),
          userE("a0000009", "a0000008", 13, "Next: add subtract()."),
          asstE("a000000a", "a0000009", 15, "Added."),
        ),
    ],
    [
      "fault-open-tool-call",
      "the last entry is a tool call that got no result (Pi stopped while the tool ran)",
      () =>
        lines(
          HEADER,
          ...base(),
          userE("a0000008", "a0000007", 13, "Run the linter."),
          toolCallE("a0000009", "a0000008", 15, "toolu_02", "bash", { command: "npm run lint" }),
        ),
    ],
    [
      "fault-context-over-window",
      "the last assistant message records 230,000 tokens, over claude-sonnet-4-5's 200,000-token window",
      () => {
        const b = base();
        const usage = { ...b[6].message.usage, input: 229000, output: 1000, totalTokens: 230000 };
        b[6] = withMessage(b[6], { usage });
        return lines(HEADER, ...b, userE("a0000008", "a0000007", 13, "And the other 400 files?"));
      },
    ],
    [
      "fault-images-over-limit",
      "a user message with 101 images, one more than Anthropic takes in a request",
      () => {
        const b = base();
        const images = Array.from({ length: 101 }, () => ({ type: "image", data: PNG_1X1, mimeType: "image/png" }));
        b[5] = withMessage(b[5], { content: [{ type: "text", text: "Compare these screenshots." }, ...images] });
        return lines(HEADER, ...b);
      },
    ],
    [
      "fault-image-too-large",
      "an image of 9000x1200 px, over the 8000x8000 px Anthropic takes: Pi sends it as stored",
      () => {
        const b = base();
        const image = { type: "image", data: PNG_9000X1200_HEAD, mimeType: "image/png" };
        b[5] = withMessage(b[5], { content: [{ type: "text", text: "Why is the chart clipped?" }, image] });
        return lines(HEADER, ...b);
      },
    ],
    [
      "fault-images-over-2000px",
      "21 images in a request to Anthropic, one of them 2100x1000 px: with more than 20, Anthropic takes none over 2000x2000 px",
      () => {
        const b = base();
        const images = Array.from({ length: 20 }, () => ({ type: "image", data: PNG_1X1, mimeType: "image/png" }));
        images.push({ type: "image", data: pngHead(2100, 1000), mimeType: "image/png" });
        b[5] = withMessage(b[5], { content: [{ type: "text", text: "Which of these frames flickers?" }, ...images] });
        return lines(HEADER, ...b);
      },
    ],
    [
      "fault-images-per-message",
      "a user message with 21 images for a Bedrock model, one more than pi-ai's catalogue (and Bedrock's Converse API) takes per message",
      () => imagesForModel("amazon-bedrock", "anthropic.claude-haiku-4-5-20251001-v1:0", "Here are the 21 pages of the scanned contract.", 21),
    ],
    [
      "fault-image-text-only-model",
      "an image for a model that takes none (deepseek-v4-pro): Pi sends a text placeholder",
      () => imagesForModel("deepseek", "deepseek-v4-pro", "What does this screenshot show?", 1),
    ],
    [
      "fault-empty-user-message",
      "a user message whose content is an empty string",
      () => {
        const b = base();
        b[5] = withMessage(b[5], { content: "" });
        return lines(HEADER, ...b);
      },
    ],
    [
      "fault-metadata-leaf",
      "the last line is a session_info hung on an older entry: Pi resumes there and leaves out the last turn (#9930)",
      () => lines(HEADER, ...base(), { type: "session_info", id: "a0000008", parentId: "a0000005", timestamp: T(12), name: "Fix add()" }),
    ],
    [
      "fault-two-writers",
      "two processes appended to one file: two branches grow in turns, with near-equal timestamps (#8300, #8848)",
      () => {
        const b = base();
        return lines(
          HEADER,
          ...b.slice(0, 5),
          userE("a0000006", "a0000005", 9, "Thanks. Run the tests."),
          userE("b0000006", "a0000005", 9.4, "Also add a subtract() helper."),
          asstE("a0000007", "a0000006", 11, "All 3 tests pass."),
          asstE("b0000007", "b0000006", 11.3, "Added subtract()."),
          userE("a0000008", "a0000007", 13, "Commit it."),
          userE("b0000008", "b0000007", 13.2, "Test it too."),
          asstE("a0000009", "a0000008", 15, "Committed."),
          asstE("b0000009", "b0000008", 15.1, "One test added; it passes."),
        );
      },
    ],
    [
      "fault-oh-my-pi",
      "an oh-my-pi session: a 256-byte title line before the header, `model: provider/id` model changes",
      () => {
        const title = { type: "title", v: 1, title: "Fix add()", source: "auto", updatedAt: T(12), pad: "" };
        title.pad = " ".repeat(255 - JSON.stringify(title).length);
        const b = base();
        return lines(
          title,
          { ...HEADER, title: "Fix add()", titleSource: "auto" },
          { type: "model_change", id: "a0000001", parentId: null, timestamp: T(1), model: "anthropic/claude-sonnet-4-5", role: "default" },
          ...b.slice(1),
        );
      },
    ],
    [
      "fault-system-between-call-and-result",
      "a 1.x system message between a tool call and its result (Pi 1.x holds it back, 0.73/0.74 drops it)",
      () => {
        const b = base();
        const system = {
          type: "message",
          id: "s0000001",
          parentId: "a0000003",
          timestamp: T(4.5),
          message: { role: "system", content: "", sections: { rules: "<rules>\n- Run tests after every change.\n</rules>" }, timestamp: MS(4.5) },
        };
        return lines(HEADER, ...b.slice(0, 3), system, reparent(b[3], "s0000001"), ...b.slice(4));
      },
    ],
    [
      "fault-bash-excluded",
      "bash executions: one excluded from the context (`!!`), one failed with truncated output",
      () => {
        const bash = (id, parentId, s, extra) => ({
          type: "message",
          id,
          parentId,
          timestamp: T(s),
          message: {
            role: "bashExecution",
            command: "git status",
            output: " M src/math.ts\n",
            exitCode: 0,
            cancelled: false,
            truncated: false,
            timestamp: MS(s),
            ...extra,
          },
        });
        return lines(
          HEADER,
          ...base(),
          bash("a0000008", "a0000007", 12, { excludeFromContext: true }),
          bash("a0000009", "a0000008", 13, {
            command: "npm test",
            output: "FAIL src/math.test.ts",
            exitCode: 1,
            truncated: true,
            fullOutputPath: "/tmp/pi-bash-1.log",
          }),
          userE("a000000a", "a0000009", 14, "Why does it fail?"),
        );
      },
    ],
  ];
}

// ---- Fixtures too large to commit ------------------------------------------------------------------
//
// The smallest request limit in pi-ai's catalogue is Google's: `inputLimits.maxRequestBytes` of
// 20,971,520 bytes for the Gemini API models (Google documents a 20 MB limit on a request's total
// size, prompts, system instructions and inline data included, "Image understanding"). A fixture
// over it cannot be a committed file, so it is built here, byte for byte the same on every run:
// generate.mjs probes it with the real Pi from a temporary folder and records digests instead of
// the messages (test/parity/expected), and test/parity/requestFaults.test.ts builds it again.

/** Deterministic bytes (xorshift32), as incompressible as a real screenshot. */
function noise(length, seed) {
  const out = Buffer.allocUnsafe(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function adler32(bytes) {
  let a = 1;
  let b = 0;
  for (let i = 0; i < bytes.length; i++) {
    a = (a + bytes[i]) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A valid RGB PNG of `width` x `height` px of noise, stored uncompressed (zlib stored blocks, written
 * here so that every Node writes the same bytes): what a screenshot that does not compress weighs.
 */
export function noisePng(width, height, seed) {
  const rowBytes = 1 + width * 3;
  const raw = noise(rowBytes * height, seed);
  for (let y = 0; y < height; y++) raw[y * rowBytes] = 0; // Filter type None on every row.
  const blocks = [Buffer.from([0x78, 0x01])];
  for (let at = 0; at < raw.length; at += 65535) {
    const piece = raw.subarray(at, Math.min(at + 65535, raw.length));
    const head = Buffer.alloc(5);
    head[0] = at + piece.length >= raw.length ? 1 : 0;
    head.writeUInt16LE(piece.length, 1);
    head.writeUInt16LE(~piece.length & 0xffff, 3);
    blocks.push(head, piece);
  }
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(adler32(raw), 0);
  blocks.push(tail);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", ihdr), chunk("IDAT", Buffer.concat(blocks)), chunk("IEND", Buffer.alloc(0))]);
}

/** Screenshots in the request-too-large fixture: each within Pi's own resize limits for Gemini (2000x2000 px, 4.5 MiB). */
export const SCREENSHOT = { width: 1280, height: 860, count: 5 };

/**
 * A Gemini session in which the user attached five 1280x860 screenshots, one per turn: each image
 * is one Pi itself would attach unchanged (within pi-ai's resize limits for the model), and
 * together they take the request over Google's 20 MiB. Lines: header, model change, then user
 * (text and image) and assistant turns; the fifth screenshot (line 10) crosses the limit.
 */
export function requestTooLarge() {
  const T = (s) => new Date(Date.UTC(2026, 2, 2, 10, 0, 0) + s * 1000).toISOString();
  const MS = (s) => Date.UTC(2026, 2, 2, 10, 0, 0) + s * 1000;
  const out = [
    { type: "session", version: 3, id: "019b0000-0000-7000-8000-0000000000bb", timestamp: T(0), cwd: "/home/dev/p" },
    { type: "model_change", id: "g0000001", parentId: null, timestamp: T(1), provider: "google", modelId: "gemini-2.5-flash" },
  ];
  let parentId = "g0000001";
  for (let i = 1; i <= SCREENSHOT.count; i++) {
    const s = 10 * i;
    const data = noisePng(SCREENSHOT.width, SCREENSHOT.height, i).toString("base64");
    const user = {
      type: "message",
      id: `g00000${i}a`,
      parentId,
      timestamp: T(s),
      message: {
        role: "user",
        content: [
          { type: "text", text: `Screenshot ${i}: what changed in the dashboard?` },
          { type: "image", data, mimeType: "image/png" },
        ],
        timestamp: MS(s),
      },
    };
    const assistant = {
      type: "message",
      id: `g00000${i}b`,
      parentId: user.id,
      timestamp: T(s + 2),
      message: {
        role: "assistant",
        content: [{ type: "text", text: `In screenshot ${i} the chart's legend moved below the axis.` }],
        api: "google-generative-ai",
        provider: "google",
        model: "gemini-2.5-flash",
        usage: {
          input: 1300 * i,
          output: 20,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 1300 * i + 20,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: "stop",
        timestamp: MS(s + 2),
      },
    };
    out.push(user, assistant);
    parentId = assistant.id;
  }
  return `${out.map((e) => JSON.stringify(e)).join("\n")}\n`;
}

/** [name, what, make]: fixtures generate.mjs builds and probes in a temporary folder, and records as digests. */
export const GENERATED_FAULTS = [
  [
    "fault-request-too-large",
    "(built at generation time, not committed: 22 MB) five 1280x860 screenshots in a Gemini session take the request over Google's 20 MiB",
    requestTooLarge,
  ],
];
