/**
 * A hostile session for `export`: every place a session value reaches the page holds markup that
 * would run code if it were not escaped (script tags, `</script>` inside strings, `onerror=`
 * attributes, `javascript:` links, an SVG image), bidirectional controls, a broken JSON line, a
 * parent cycle, two branches, and a last line of `hugeChars` characters. Each payload sets
 * `window.__pwned`, so a browser test can tell whether any ran.
 */

/** A 1×1 PNG, which the page shows inline. */
export const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** The id of the entry whose id holds bidirectional controls and right-to-left letters. */
export const BIDI_ID = "\u202Eevil-\u05D0\u05D1";

const pwn = (tag: string) => `window.__pwned='${tag}'`;

export function hostileExportSession(hugeChars = 10 * 1024 * 1024): string {
  let t = 0;
  const time = () => new Date(Date.UTC(2026, 0, 1, 0, 0, t++)).toISOString();
  const user = (id: string, parentId: string | null, text: string) => ({
    type: "message",
    id,
    parentId,
    timestamp: time(),
    message: { role: "user", content: [{ type: "text", text }], timestamp: 1 },
  });
  const assistant = (id: string, parentId: string, content: unknown[], model = "claude-sonnet-4-5") => ({
    type: "message",
    id,
    parentId,
    timestamp: time(),
    message: { role: "assistant", provider: "anthropic", model, content, stopReason: "stop", timestamp: 1 },
  });
  const lines: unknown[] = [
    { type: "session", version: 3, id: "hostile-export", timestamp: time(), cwd: "/nonexistent/hostile" },
    { type: "session_info", id: "n1", parentId: null, timestamp: time(), name: `<script>${pwn("name")}</script>\u202Eeman` },
    user("u1", "n1", `<script>${pwn("user")}</script><img src=x onerror="${pwn("img")}"> <style>body{display:none}</style>`),
    assistant(
      "a1",
      "u1",
      [
        { type: "thinking", thinking: `</details><script>${pwn("thinking")}</script>` },
        {
          type: "toolCall",
          id: "c1",
          name: `<svg onload="${pwn("tool")}">`,
          arguments: { cmd: `</script><script>${pwn("args")}</script>`, url: `javascript:${pwn("url")}` },
        },
      ],
      `<img src=x onerror="${pwn("model")}">`,
    ),
    {
      type: "message",
      id: "r1",
      parentId: "a1",
      timestamp: time(),
      message: {
        role: "toolResult",
        toolCallId: "c1",
        toolName: "bash",
        isError: false,
        timestamp: 1,
        content: [
          { type: "text", text: `[click me](javascript:${pwn("md")})\n<a href="javascript:${pwn("a")}">JAVASCRIPT-LINK</a>` },
          {
            type: "image",
            mimeType: "image/svg+xml",
            data: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" onload="${pwn("svg")}"/>`).toString("base64"),
          },
          { type: "image", mimeType: "image/png", data: `AAAA" onerror="${pwn("data")}` },
          // A PNG's first bytes, then an attribute: the signature alone must not let it through.
          { type: "image", mimeType: "image/png", data: `${PNG_1X1.slice(0, 16)}" onerror="${pwn("signed")}` },
          { type: "image", mimeType: "image/png", data: PNG_1X1 },
        ],
      },
    },
    {
      type: "custom_message",
      id: "cm1",
      parentId: "r1",
      timestamp: time(),
      customType: `"><script>${pwn("custom")}</script>`,
      content: "custom content",
      display: true,
    },
    { type: "label", id: "lb1", parentId: "cm1", timestamp: time(), targetId: "u1", label: `<script>${pwn("label")}</script>\u202Elabel` },
    user(BIDI_ID, "lb1", "BIDI: abc \u202Eevil\u202C def \u2066isolated\u2069 \u05E9\u05DC\u05D5\u05DD"),
    assistant("bA", BIDI_ID, [{ type: "text", text: "BRANCH-A-TEXT" }]),
    assistant("bB", BIDI_ID, [{ type: "text", text: "BRANCH-B-TEXT" }]),
    user("cy1", "cy2", "CYCLE-1"),
    user("cy2", "cy1", "CYCLE-2"),
    user("big", "bB", `HUGE-START ${"A".repeat(hugeChars)}`),
  ];
  const text = lines.map((l) => JSON.stringify(l));
  // A broken line in the middle, which Pi skips.
  text.splice(4, 0, '{"type":"message","id":"broken","parentId":"a1","message":{"role":"user","content":"</script><script>');
  return `${text.join("\n")}\n`;
}
