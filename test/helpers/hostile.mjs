// Hostile Pi sessions from a seed (issue 10): deep nesting, control characters, prototype keys,
// non-string ids, Markdown and terminal breakouts, huge line counts, and a folder of odd files.
// Plain JavaScript so that the oracle script (test/parity/hostile-context.mjs) can import it
// without a build; the same seed gives the same bytes.

import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Xorshift32 from a seed (never 0): numbers in [0, 1), the same for the same seed. */
export function seeded(seed) {
  let x = seed >>> 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

/** Text that would take over a terminal or a Markdown view if shown raw. */
export const PAYLOADS = [
  "\u001b[2J\u001b[H\u001b]0;pwned\u0007all good",
  "\u009b31m\u202eevil\u202c\u0000\u007f",
  "![x](https://evil.example/p.png) [run](command:workbench.action.terminal.new) <img src=x onerror=alert(1)>",
  "``` `` ` </details><script>alert(1)</script>",
  "line one\r\nline two\rthree\u2028four",
];
const PROTO_KEYS = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];
const ROLES = ["user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary", ...PROTO_KEYS, PAYLOADS[0]];
const TYPES = [
  "message",
  "message",
  "message",
  "model_change",
  "thinking_level_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
  ...PROTO_KEYS,
  PAYLOADS[1],
];

/** An array nested `depth` deep, as JSON text (built as text: JSON.stringify would overflow). */
export const nested = (depth, inner = "") => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;

export function makeGen(random) {
  const int = (n) => Math.floor(random() * n);
  const pick = (items) => items[int(items.length)];
  const chance = (p) => random() < p;
  /** A value as JSON text: sometimes deep, sometimes odd. */
  const oddValue = () =>
    pick([
      () => nested(pick([3, 200, 3500, 7000, 20000]), pick(["", "1", '"x"', "{}"])),
      () => `{${nested(1)}:1}`.replace(`${nested(1)}`, '"__proto__"'),
      () => '{"toString":1,"valueOf":2}',
      () => JSON.stringify(pick(PAYLOADS)),
      () => pick(["null", "true", "0", "-1e999", "12345678901234567890", "1.50", "[]", "{}"]),
    ])();
  /** An id: mostly strings, then every other JSON kind Pi's Map would key by. */
  const idPool = [];
  const freshId = (oddIds) => {
    if (oddIds && chance(0.5))
      return pick(["1", "2", "0", "-0", "1.0", "true", "false", "null", '""', "[1]", '{"a":1}', '"1"', '"__proto__"', '"constructor"', '"toString"']);
    const id = chance(0.1)
      ? pick(PROTO_KEYS)
      : chance(0.1)
        ? `${pick(PAYLOADS).slice(0, 12)}${idPool.length}`
        : `e${idPool.length.toString(16).padStart(7, "0")}`;
    return JSON.stringify(id);
  };
  const content = () =>
    pick([
      () => JSON.stringify(pick(PAYLOADS)),
      () => JSON.stringify([{ type: "text", text: pick(PAYLOADS) }]),
      () => `[{"type":"text","text":"hi"},{"type":${JSON.stringify(pick(PROTO_KEYS))},"text":"x"}]`,
      () => oddValue(),
      () => '"plain words"',
    ])();
  const entry = (type, id, parent, oddIds) => {
    const head = `"type":${JSON.stringify(type)},${id === undefined ? "" : `"id":${id},`}"parentId":${parent},"timestamp":${chance(0.9) ? `"2026-03-02T10:00:${String(int(60)).padStart(2, "0")}.000Z"` : oddValue()}`;
    switch (type) {
      case "message": {
        const role = chance(0.8) ? pick(["user", "assistant", "toolResult"]) : pick(ROLES);
        const extra =
          role === "assistant"
            ? `,"api":"anthropic-messages","provider":${chance(0.8) ? '"anthropic"' : oddValue()},"model":"claude-sonnet-4-5","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop"`
            : role === "toolResult"
              ? `,"toolCallId":${chance(0.7) ? '"toolu_1"' : oddValue()},"toolName":"bash","isError":false`
              : "";
        return `{${head},"message":{"role":${JSON.stringify(role)},"content":${content()}${extra},"timestamp":1}}`;
      }
      case "model_change":
        return `{${head},"provider":${chance(0.7) ? '"anthropic"' : oddValue()},"modelId":${chance(0.7) ? '"claude-sonnet-4-5"' : oddValue()}}`;
      case "thinking_level_change":
        return `{${head},"thinkingLevel":${chance(0.7) ? '"high"' : oddValue()}}`;
      case "compaction":
        return `{${head},"summary":${content()},"firstKeptEntryId":${chance(0.6) && idPool.length > 0 ? pick(idPool) : oddValue()},"tokensBefore":100}`;
      case "branch_summary":
        return `{${head},"fromId":${idPool.length > 0 ? pick(idPool) : "null"},"summary":${content()}}`;
      case "label":
        return `{${head},"targetId":${idPool.length > 0 ? pick(idPool) : freshId(oddIds)},"label":${chance(0.6) ? JSON.stringify(pick(PAYLOADS)) : oddValue()}}`;
      case "session_info":
        return `{${head},"name":${chance(0.6) ? JSON.stringify(pick(PAYLOADS)) : oddValue()}}`;
      case "custom_message":
        return `{${head},"customType":${JSON.stringify(pick(PROTO_KEYS))},"content":${content()},"display":true}`;
      default:
        return `{${head},"customType":"x","data":${oddValue()}}`;
    }
  };
  const header = (oddIds) => {
    const id = oddIds || chance(0.85) ? '"0197a0b0-0000-7000-8000-000000000001"' : pick(["12", oddValue(), '"__proto__"']);
    const version = oddIds || chance(0.8) ? "3" : pick(['"3"', "[3]", "2", nested(6000, "3"), '{"toString":1}', "null"]);
    const cwd = chance(0.9) ? '"/p"' : JSON.stringify(`/p/${pick(PAYLOADS)}`);
    const parent = chance(0.1) ? `,"parentSession":${oddValue()}` : "";
    return `{"type":"session","version":${version},"id":${id},"timestamp":"2026-03-02T10:00:00.002Z","cwd":${cwd}${parent}}`;
  };
  return {
    /**
     * One session's text. `oddIds` keeps to what Pi itself can read (valid messages, no deep
     * values) and varies only the ids, for the comparison with the real Pi.
     */
    session({ oddIds = false, entries = 1 + int(30) } = {}) {
      idPool.length = 0;
      const lines = [header(oddIds)];
      for (let k = 0; k < entries; k++) {
        const id = oddIds ? freshId(true) : chance(0.05) ? undefined : freshId(false);
        const parent =
          idPool.length === 0 || chance(0.1)
            ? pick(["null", freshId(oddIds), oddIds ? "null" : oddValue()])
            : chance(0.8)
              ? idPool[idPool.length - 1]
              : pick(idPool);
        if (oddIds) {
          const role = pick(["user", "assistant", "user"]);
          const text = JSON.stringify(`m${k}`);
          const body =
            role === "assistant"
              ? `"content":[{"type":"text","text":${text}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop"`
              : `"content":${text}`;
          lines.push(
            `{"type":"message",${id === undefined ? "" : `"id":${id},`}"parentId":${parent},"timestamp":"2026-03-02T10:00:${String(k % 60).padStart(2, "0")}.000Z","message":{"role":"${role}",${body},"timestamp":${k}}}`,
          );
        } else {
          lines.push(entry(pick(TYPES), id, parent, false));
          if (chance(0.08)) lines.push(pick(["", "null", "x", "[1,2]", '"s"', PAYLOADS[0], "{", nested(5000)]));
          if (chance(0.04)) lines.push(lines.pop().replace(/,"/g, ',\n  "')); // pretty-printed
        }
        if (id !== undefined) idPool.push(id);
      }
      const text = `${lines.join("\n")}${chance(0.9) ? "\n" : ""}`;
      return !oddIds && chance(0.05) ? `\uFEFF${text}` : text;
    },
  };
}

/**
 * A folder of hostile sessions and odd files: `count` sessions, a link to the folder itself and a loop of two, a FIFO and a link to
 * /dev/zero named *.jsonl, links to a folder and a file outside, a hard link, and a file name with
 * control characters; beside it, a header and `hugeLines` lines of "x". Returns the folder and the
 * regular session files written.
 */
export function writeHostileFolder(root, random, { count = 20, hugeLines = 100_000 } = {}) {
  const gen = makeGen(random);
  const dir = join(root, "sessions");
  const outside = join(root, "outside");
  mkdirSync(join(dir, "sub"), { recursive: true });
  mkdirSync(outside, { recursive: true });
  const files = [];
  for (let i = 0; i < count; i++) {
    const name = i === 3 ? `2026-03-02T10-00-0${i % 10}-000Z_\u001b[2Jodd\u0007.jsonl` : `2026-03-02T10-00-${String(i).padStart(2, "0")}-000Z_s${i}.jsonl`;
    const path = join(i % 4 === 0 ? join(dir, "sub") : dir, name);
    writeFileSync(path, gen.session({ oddIds: i % 5 === 1 }));
    files.push(path);
  }
  // Beside the folder, not in it: the folder commands would read it on every run.
  const huge = join(root, "2026-03-02T09-00-00-000Z_huge.jsonl");
  writeFileSync(
    huge,
    `{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-00000000000f","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/p"}\n${"x\n".repeat(hugeLines)}`,
  );
  files.push(huge);
  writeFileSync(join(outside, "victim.jsonl"), `\uFEFF{"type":"session","version":3,"id":"v","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p"}\n`);
  symlinkSync(".", join(dir, "self"));
  symlinkSync("../sub", join(dir, "sub", "loop"));
  symlinkSync(outside, join(dir, "shared"));
  symlinkSync(join(outside, "victim.jsonl"), join(dir, "link-out.jsonl"));
  symlinkSync("/dev/zero", join(dir, "zero.jsonl"));
  symlinkSync(join(dir, "missing-target.jsonl"), join(dir, "dangling.jsonl"));
  execFileSync("mkfifo", [join(dir, "fifo.jsonl")]);
  linkSync(files[1], join(dir, "hard-link.jsonl"));
  return { dir, outside, files };
}
