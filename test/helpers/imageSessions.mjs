// Image-heavy Pi sessions, generated: several branches, a compaction on the branch Pi resumes,
// inline base64 images in user messages and tool results, and large tool and bash outputs. Plain
// JavaScript, so that the real-Pi tests and the measurement script can import it without a build.
// Deterministic: no random numbers and no clock, so every run writes the same bytes.

import { closeSync, openSync, writeSync } from "node:fs";

// A 1x1 PNG's signature and header, so that readers of image sizes see a small image.
const PNG_HEAD = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ";

/** Base64 text of `bytes` characters, varied so that it is not one repeated run. */
function base64Of(bytes, salt) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const unit = Array.from({ length: 256 }, (_, k) => alphabet[(k * 7 + salt * 13) % 64]).join("");
  const body = unit.repeat(Math.ceil(bytes / 256)).slice(0, Math.max(0, bytes - PNG_HEAD.length));
  return `${PNG_HEAD}${body}`.slice(0, Math.max(4, bytes - (bytes % 4)));
}

/** Tool output of `bytes` characters: numbered lines of source. */
function outputOf(bytes, salt) {
  const line = (k) => `${String(k).padStart(5, " ")}  export const value${salt}_${k} = ${k * 31} + ${salt}; // line\n`;
  let text = "";
  for (let k = 1; text.length < bytes; k++) text += line(k);
  return text.slice(0, bytes);
}

/**
 * The lines of a session (header first, no "\n"): `turns` turns on the branch Pi resumes, a
 * two-turn branch off it every `branchEvery` turns, and a compaction after `compactAt` turns (0 for
 * none) that keeps the last turn before it. Each turn is a user message with an image, an assistant
 * tool call, a tool result with text and an image, an assistant answer, and a bash execution.
 */
export function* imageSessionLines(options = {}) {
  const { turns = 6, branchEvery = 2, compactAt = 4, imageBytes = 20_000, outputBytes = 12_000 } = options;
  let counter = 0;
  let clock = Date.UTC(2026, 2, 2, 10, 0, 0);
  const nextId = () => (++counter).toString(16).padStart(8, "0");
  const stamp = () => new Date((clock += 1000)).toISOString();
  yield JSON.stringify({ type: "session", version: 3, id: "019cadfd-8900-70c4-be01-0000000000aa", timestamp: stamp(), cwd: "/home/dev/project" });
  const root = nextId();
  yield JSON.stringify({ type: "model_change", id: root, parentId: null, timestamp: stamp(), provider: "anthropic", modelId: "claude-sonnet-4-5" });
  const usage = {
    input: 1200,
    output: 80,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 1280,
    cost: { input: 0.0036, output: 0.0012, cacheRead: 0, cacheWrite: 0, total: 0.0048 },
  };
  const entry = (parentId, message) => {
    const id = nextId();
    return { id, line: JSON.stringify({ type: "message", id, parentId, timestamp: stamp(), message: { ...message, timestamp: clock } }) };
  };
  const assistant = (content, stopReason) => ({
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage,
    stopReason,
  });
  /** One turn from `parent`: its lines and the id of its last entry, and of its first. */
  const turn = (parent, salt) => {
    const lines = [];
    const user = entry(parent, {
      role: "user",
      content: [
        { type: "text", text: `Look at screenshot ${salt}.` },
        { type: "image", data: base64Of(imageBytes, salt), mimeType: "image/png" },
      ],
    });
    lines.push(user.line);
    const callId = `toolu_${salt}_${counter}`;
    const call = entry(user.id, assistant([{ type: "toolCall", id: callId, name: "read", arguments: { path: `src/file${salt}.ts` } }], "toolUse"));
    lines.push(call.line);
    const result = entry(call.id, {
      role: "toolResult",
      toolCallId: callId,
      toolName: "read",
      content: [
        { type: "text", text: outputOf(outputBytes, salt) },
        { type: "image", data: base64Of(imageBytes, salt + 1), mimeType: "image/jpeg" },
      ],
      isError: false,
    });
    lines.push(result.line);
    const answer = entry(result.id, assistant([{ type: "text", text: `Screenshot ${salt} shows the build output.` }], "stop"));
    lines.push(answer.line);
    const bash = entry(answer.id, {
      role: "bashExecution",
      command: "npm test",
      output: outputOf(outputBytes, salt + 2),
      exitCode: 0,
      cancelled: false,
      truncated: false,
    });
    lines.push(bash.line);
    return { lines, first: user.id, last: bash.id };
  };
  let last = root;
  for (let t = 1; t <= turns; t++) {
    const before = last;
    const main = turn(before, t * 10);
    yield* main.lines;
    last = main.last;
    if (branchEvery > 0 && t % branchEvery === 0) {
      // A branch from where this turn started, as /tree then a new prompt makes one.
      let b = before;
      for (let k = 1; k <= 2; k++) {
        const side = turn(b, t * 10 + k * 100);
        yield* side.lines;
        b = side.last;
      }
    }
    if (t === compactAt) {
      const id = nextId();
      yield JSON.stringify({
        type: "compaction",
        id,
        parentId: last,
        timestamp: stamp(),
        summary: `## Goal\nRead the screenshots.\n\n## Progress\n- ${t} turns done`,
        firstKeptEntryId: main.first,
        tokensBefore: 50_000,
        details: { readFiles: [`src/file${t * 10}.ts`], modifiedFiles: [] },
      });
      last = id;
    }
  }
  // The leaf: a last answer on the branch Pi resumes.
  const closing = entry(last, { role: "user", content: [{ type: "text", text: "Thanks." }] });
  yield closing.line;
}

/** The session as one text, lines ended by "\n". */
export function imageSession(options = {}) {
  return `${[...imageSessionLines(options)].join("\n")}\n`;
}

/** Writes the session to `path` line by line (for sessions of hundreds of MB); returns its size. */
export function writeImageSession(path, options = {}) {
  const fd = openSync(path, "w");
  let size = 0;
  try {
    for (const line of imageSessionLines(options)) size += writeSync(fd, `${line}\n`);
  } finally {
    closeSync(fd);
  }
  return size;
}
