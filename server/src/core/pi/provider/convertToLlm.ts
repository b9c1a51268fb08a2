/**
 * Pi's `convertToLlm` (pi-coding-agent `core/messages.ts`), the step between the built context and
 * pi-ai: Pi's own message roles become the `user` messages a provider understands, and roles no
 * provider knows are left out. The same in Pi 0.73/0.74 and 1.x, except that 1.x passes `system`
 * messages on (they carry its system prompt) while 0.73/0.74, which has no system role, drops them.
 *
 * - `bashExecution` (a `!` command) → user text ("Ran `cmd`", the output fenced, exit code,
 *   cancellation and truncation notes); a `!!` command (`excludeFromContext`) is left out;
 * - `custom` → user, its string content as one text block;
 * - `branchSummary`, `compactionSummary` → user text, the summary between Pi's prefix and suffix;
 * - `user`, `assistant`, `toolResult` (1.x also `system`) → unchanged, the very object;
 * - any other role → left out.
 *
 * New objects have Pi's key order, and every value goes through the same JavaScript operations
 * (template literals, `+`), so `JSON.stringify` of the result equals Pi's. Where those operations
 * throw in Pi (a message that is null, a value whose string conversion fails), the conversion
 * returns the failure instead of throwing.
 */

export const COMPACTION_SUMMARY_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
export const COMPACTION_SUMMARY_SUFFIX = "\n</summary>";
export const BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
export const BRANCH_SUMMARY_SUFFIX = "</summary>";

/** Which Pi's conversion: 1.x (system messages pass) or 0.73/0.74 (system messages dropped). */
export type PipelineVersion = "1.x" | "0.74";

/** Why a context message does not reach the provider. */
export type LeftOut = "excluded-bash" | "unknown-role" | "system-0.74";

export type ConvertResult =
  | {
      ok: true;
      messages: unknown[];
      /** For each converted message, the index of the context message it comes from. */
      from: number[];
      /** Context messages left out, by index, and why. */
      leftOut: { index: number; why: LeftOut }[];
    }
  | { ok: false; index: number; reason: string };

export function convertToLlm(messages: readonly unknown[], version: PipelineVersion): ConvertResult {
  const out: unknown[] = [];
  const from: number[] = [];
  const leftOut: { index: number; why: LeftOut }[] = [];
  for (let i = 0; i < messages.length; i++) {
    const converted = convertMessage(messages[i], i, version);
    if (converted.ok === false) return converted;
    if (converted.leftOut !== undefined) {
      leftOut.push({ index: i, why: converted.leftOut });
      continue;
    }
    out.push(converted.message);
    from.push(i);
  }
  return { ok: true, messages: out, from, leftOut };
}

/** Context message `i` converted, or why it is left out, or why Pi throws on it: it reads that message alone. */
export function convertMessage(
  message: unknown,
  i: number,
  version: PipelineVersion,
): { ok: true; message: unknown; leftOut?: undefined } | { ok: true; leftOut: LeftOut } | { ok: false; index: number; reason: string } {
  const m = message as Record<string, unknown> | null | undefined;
  // Pi reads `m.role` first: only null and undefined make that throw.
  if (m === null || m === undefined) return { ok: false, index: i, reason: `message ${i + 1} is ${String(m)}` };
  let converted: unknown;
  try {
    converted = convertOne(m, version);
  } catch (error) {
    return { ok: false, index: i, reason: `converting message ${i + 1} throws ${describeError(error)}` };
  }
  return typeof converted === "string" ? { ok: true, leftOut: converted as LeftOut } : { ok: true, message: converted };
}

/** One message converted, or why it is left out. */
function convertOne(m: Record<string, unknown>, version: PipelineVersion): unknown {
  switch (m.role) {
    case "bashExecution":
      if (m.excludeFromContext) return "excluded-bash";
      return { role: "user", content: [{ type: "text", text: bashExecutionToText(m) }], timestamp: m.timestamp };
    case "custom": {
      const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
      return { role: "user", content, timestamp: m.timestamp };
    }
    case "branchSummary":
      return { role: "user", content: [{ type: "text", text: BRANCH_SUMMARY_PREFIX + (m.summary as string) + BRANCH_SUMMARY_SUFFIX }], timestamp: m.timestamp };
    case "compactionSummary":
      return {
        role: "user",
        content: [{ type: "text", text: COMPACTION_SUMMARY_PREFIX + (m.summary as string) + COMPACTION_SUMMARY_SUFFIX }],
        timestamp: m.timestamp,
      };
    case "system":
      return version === "1.x" ? m : "system-0.74";
    case "user":
    case "assistant":
    case "toolResult":
      return m;
    default:
      return "unknown-role";
  }
}

/** Pi's `bashExecutionToText`, operation for operation. */
export function bashExecutionToText(msg: Record<string, unknown>): string {
  let text = `Ran \`${msg.command}\`\n`;
  if (msg.output) {
    text += `\`\`\`\n${msg.output}\n\`\`\``;
  } else {
    text += "(no output)";
  }
  if (msg.cancelled) {
    text += "\n\n(command cancelled)";
  } else if (msg.exitCode !== null && msg.exitCode !== undefined && msg.exitCode !== 0) {
    text += `\n\nCommand exited with code ${msg.exitCode}`;
  }
  if (msg.truncated && msg.fullOutputPath) {
    text += `\n\n[Output truncated. Full output: ${msg.fullOutputPath}]`;
  }
  return text;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
