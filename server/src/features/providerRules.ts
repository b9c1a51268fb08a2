/**
 * What each provider API documents about the requests Pi sends it, for the request diagnostics:
 * who answers, how a tool result must follow its call, and what Pi's own conversion for that API
 * does with a user message without text (`emptyUserFate`). Keyed by pi-ai's `api` of the model Pi resumes with.
 *
 * Sources: Anthropic, "Handle tool calls" (tool_result blocks must immediately follow the assistant
 * message with their tool_use blocks) and "Images and vision" (100 images per request for models
 * with a 200k-token window, 600 otherwise; at most 8000x8000 px per image, 2000x2000 px when a
 * request has more than 20; 32 MB per request); OpenAI's Chat Completions (a `tool` message must
 * answer a `tool_calls` entry of the assistant message before it) and Responses
 * (`function_call_output` needs the `function_call` with its `call_id` in the input); Google's
 * Gemini function calling (a function response turn comes right after the function call turn);
 * Amazon Bedrock Converse (`toolResult` blocks answer the `toolUse` blocks of the previous turn);
 * Mistral (tool messages answer the assistant's tool calls). The image and request size limits per
 * model are pi-ai's own catalogue (`inputLimits`), compiled from the same documentation: the
 * smallest, 20,971,520 bytes, is the Gemini API's (Google: a request's total size, prompts, system
 * instructions and inline data included, is limited to 20 MB, "Image understanding"), then
 * Anthropic's 32 MB ("Request size limits": 413 `request_too_large`).
 */

export interface ProviderRule {
  /** Who answers the request, as the message names it. */
  provider: string;
  /** Whether a tool result must come right after the assistant message with its call (else: anywhere after it). */
  adjacentResults: boolean;
  /** The documented constraint on tool results, in a sentence. */
  toolResultRule: string;
  /** What the provider answers when it is broken, quoted from its error. */
  toolResultError: string;
  /** Whether Anthropic's documented per-image dimension limits apply. */
  anthropicImages: boolean;
  /** What the provider documents about a request's size, and answers past it, where pi-ai's catalogue gives a limit. */
  requestSize?: string;
}

const ANTHROPIC: ProviderRule = {
  provider: "Anthropic's Messages API",
  adjacentResults: true,
  toolResultRule: "each tool_result block must answer a tool_use block of the assistant message right before it",
  toolResultError:
    "unexpected `tool_use_id` found in `tool_result` blocks … Each `tool_result` block must have a corresponding `tool_use` block in the previous message",
  anthropicImages: true,
  requestSize: 'Anthropic documents 32 MB per Messages API request and answers larger ones with HTTP 413 "request_too_large"',
};

const GEMINI_SIZE =
  'Google documents a 20 MB limit on a request\'s total size (prompts, system instructions and inline data) and answers larger ones with HTTP 400 "Request payload size exceeds the limit: 20971520 bytes"';

const RESPONSES: ProviderRule = {
  provider: "OpenAI's Responses API",
  adjacentResults: false,
  toolResultRule: "a function_call_output must answer a function_call with the same call_id earlier in the input",
  toolResultError: "No tool call found for function call output with call_id …",
  anthropicImages: false,
};

const RULES: Record<string, ProviderRule> = {
  "anthropic-messages": ANTHROPIC,
  "openai-responses": RESPONSES,
  "azure-openai-responses": { ...RESPONSES, provider: "Azure OpenAI's Responses API" },
  "openai-codex-responses": { ...RESPONSES, provider: "the OpenAI Codex Responses API" },
  "openai-completions": {
    provider: "the OpenAI Chat Completions API",
    adjacentResults: true,
    toolResultRule: "a message with role tool must answer a tool_calls entry of the assistant message before it",
    toolResultError: "Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
    anthropicImages: false,
  },
  "google-generative-ai": {
    provider: "the Gemini API",
    adjacentResults: true,
    toolResultRule: "a function response turn must come right after the function call turn it answers",
    toolResultError: "Please ensure that function response turn comes immediately after a function call turn",
    anthropicImages: false,
    requestSize: GEMINI_SIZE,
  },
  "google-vertex": {
    provider: "Vertex AI's Gemini API",
    adjacentResults: true,
    toolResultRule: "a function response turn must come right after the function call turn it answers",
    toolResultError: "Please ensure that function response turn comes immediately after a function call turn",
    anthropicImages: false,
  },
  "bedrock-converse-stream": {
    provider: "Amazon Bedrock's Converse API",
    adjacentResults: true,
    toolResultRule: "toolResult blocks must answer the toolUse blocks of the previous assistant turn",
    toolResultError: "The number of toolResult blocks at messages.N.content exceeds the number of toolUse blocks of previous turn",
    anthropicImages: false,
  },
  "mistral-conversations": {
    provider: "Mistral's chat API",
    adjacentResults: true,
    toolResultRule: "tool messages must answer the tool calls of the assistant message before them",
    toolResultError: "Not the same number of function calls and responses",
    anthropicImages: false,
  },
};

/** For a model pi-ai's catalogue lacks, or an API the table does not know: what most providers require. */
const UNKNOWN: ProviderRule = {
  provider: "the provider",
  adjacentResults: true,
  toolResultRule:
    "Anthropic, OpenAI Chat Completions, Gemini, Bedrock and Mistral all require a tool result to come right after the assistant message with its call",
  toolResultError: "a 400 error naming the tool call id",
  anthropicImages: false,
};

export function ruleFor(api: unknown): ProviderRule {
  return typeof api === "string" && Object.hasOwn(RULES, api) ? RULES[api]! : UNKNOWN;
}

/** What Pi's conversion for an API does with a user message that has no text. */
export type EmptyUserFate = "left out" | "sent empty" | "placeholder" | "as stored";

/**
 * What pi-ai's conversion of `api` does with a user message whose content (after Pi's pipeline,
 * which turns a missing content into `[]`) holds no text: read from each version's compiled
 * conversion (`convertMessages` of anthropic-messages, openai-completions, google-shared, mistral,
 * bedrock-converse-stream; `convertResponsesMessages` of openai-responses-shared). Every one of
 * them drops a message whose content array is empty; they differ on a blank string and on blank
 * text blocks.
 */
export function emptyUserFate(api: unknown, content: unknown, version: "1.x" | "0.74"): EmptyUserFate {
  const none = Array.isArray(content) && content.length === 0;
  switch (typeof api === "string" ? api : "") {
    case "anthropic-messages":
      return "left out";
    case "bedrock-converse-stream":
      // Pi 1.x puts "<empty>" in place of a blank text; Pi 0.73/0.74 sends what it has.
      return version === "1.x" ? "placeholder" : "sent empty";
    case "openai-completions":
      // Pi 1.x drops text blocks of length zero, and then the message if nothing is left.
      if (version === "1.x" && Array.isArray(content) && content.every((b) => (b as { text?: unknown }).text === "")) return "left out";
      return none ? "left out" : "sent empty";
    case "openai-responses":
    case "azure-openai-responses":
    case "openai-codex-responses":
    case "google-generative-ai":
    case "google-vertex":
    case "mistral-conversations":
      return none ? "left out" : "sent empty";
    default:
      return "as stored";
  }
}
