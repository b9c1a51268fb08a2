/**
 * The fields of a request body that depend on the machine Pi runs on and not on the session, which
 * `context --stage request` leaves out and the wire replay test (test/parity/wire.test.ts) does
 * not compare:
 *
 * - Pi's system prompt (its text names the working folder, Pi's install, the tools, the date, the
 *   user's AGENTS.md and settings): Anthropic's top-level `system`, and every `system`/`developer`
 *   message of the conversation's list. The session's own system messages are folded into the
 *   prompt for most models; a model that takes system messages mid-conversation (DeepSeek's) gets
 *   them in place, and also the update Pi adds on resuming when its prompt differs from the
 *   session's. None of them is compared.
 * - The tool definitions (`tools`, `tool_choice`, `tool_stream`): the tools loaded now.
 * - Output and sampling limits (`max_tokens`, `max_completion_tokens`, `max_output_tokens`,
 *   `temperature`, `priority`), from the model's catalogue entry and the user's settings.
 * - Thinking settings (`thinking`, `output_config`, `reasoning`, `reasoning_effort`,
 *   `enable_thinking`, `chat_template_kwargs`, `chat_template_args`, `include`): the session's
 *   thinking level, or Pi's default level when it has none, mapped by the model's catalogue entry.
 * - Transport options (`stream`, `stream_options`, `store`, `betas`, `metadata`, `service_tier`,
 *   `text`, `parallel_tool_calls`, `fallbacks`, `provider`, `providerOptions`) and prompt caching
 *   keys (`prompt_cache_key`, the session id Pi has after opening the file, or a new one;
 *   `prompt_cache_retention`, `prompt_cache_options`).
 *
 * What is compared is the rest: `model` and the conversation (`messages` or `input`).
 */

import type { WireApi } from "./common";

const COMMON = ["tools", "tool_choice", "temperature", "stream", "metadata"];

/** Top-level body fields that are volatile, per API. */
export const VOLATILE_FIELDS: Record<WireApi, readonly string[]> = {
  "anthropic-messages": [...COMMON, "system", "max_tokens", "thinking", "output_config", "betas", "fallbacks"],
  "openai-completions": [
    ...COMMON,
    "tool_stream",
    "stream_options",
    "store",
    "max_completion_tokens",
    "max_tokens",
    "reasoning_effort",
    "reasoning",
    "thinking",
    "enable_thinking",
    "chat_template_kwargs",
    "chat_template_args",
    "prompt_cache_key",
    "prompt_cache_retention",
    "priority",
    "provider",
    "providerOptions",
  ],
  "openai-responses": [
    ...COMMON,
    "store",
    "max_output_tokens",
    "reasoning",
    "include",
    "prompt_cache_key",
    "prompt_cache_retention",
    "prompt_cache_options",
    "service_tier",
    "text",
    "parallel_tool_calls",
  ],
};

/**
 * The conversation's list, whose system and developer messages are volatile: the OpenAI APIs carry
 * Pi's prompt there, and every API the system messages of a model that takes them mid-conversation.
 */
export const CONVERSATION_LIST: Record<WireApi, string> = { "anthropic-messages": "messages", "openai-completions": "messages", "openai-responses": "input" };

/** The body without its volatile fields (a copy; nested values are shared). */
export function withoutVolatile(api: WireApi, body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (!VOLATILE_FIELDS[api].includes(key)) out[key] = value;
  const list = CONVERSATION_LIST[api];
  if (Array.isArray(out[list])) out[list] = (out[list] as { role?: unknown }[]).filter((item) => item?.role !== "system" && item?.role !== "developer");
  return out;
}
