/**
 * A session made heavy for `slim`'s tests: every tool result and user message with array content
 * gets an image of `imageChars` base64 characters, every bash execution an output padded to
 * `outputChars`, so that a corpus tree (branches, compactions, duplicate ids, context edits) has
 * something to slim everywhere. Lines that are not message objects stay as they are.
 */
export function heavy(text: string, sizes: { imageChars: number; outputChars: number }): string {
  const image = { type: "image", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ".padEnd(sizes.imageChars, "A"), mimeType: "image/png" };
  return text
    .split("\n")
    .map((line) => {
      let value: { type?: unknown; message?: { role?: unknown; content?: unknown; output?: unknown } };
      try {
        value = JSON.parse(line);
      } catch {
        return line;
      }
      const m = value?.type === "message" ? value.message : undefined;
      if (!m || typeof m !== "object") return line;
      if ((m.role === "toolResult" || m.role === "user") && Array.isArray(m.content)) m.content = [...m.content, image];
      else if (m.role === "user" && typeof m.content === "string") m.content = [{ type: "text", text: m.content }, image];
      else if (m.role === "bashExecution" && typeof m.output === "string") m.output = m.output.padEnd(sizes.outputChars, "x");
      else return line;
      return JSON.stringify(value);
    })
    .join("\n");
}
