/**
 * pi-ai 1.6's handling of images in tool results (`api/transform-messages.js`): the captions and
 * placeholders the conversions send instead of, or beside, an image.
 */

import type { Block, Message } from "./common";

/** Sent as a tool result's text when it holds images and no text. */
export const NO_TOOL_IMAGE_TEXT = "(see attached image)";
const ERROR_TOOL_IMAGE_PLACEHOLDER = "(image attached after the tool results)";

/** `replaceImagesWithPlaceholder`: each run of images becomes one placeholder text block. */
function replaceImages(content: readonly Block[], placeholder: string): Block[] {
  const result: Block[] = [];
  let previousWasPlaceholder = false;
  for (const block of content) {
    if (block.type === "image") {
      if (!previousWasPlaceholder) result.push({ type: "text", text: placeholder });
      previousWasPlaceholder = true;
      continue;
    }
    result.push(block);
    previousWasPlaceholder = block.text === placeholder;
  }
  return result;
}

/**
 * `splitErrorToolResultImages`: Anthropic rejects images in an error result, so they follow the
 * turn's results, after a caption; undefined for a result that needs no split.
 */
export function splitErrorToolResultImages(msg: Message, content: readonly Block[]): { content: Block[]; caption: string; images: Block[] } | undefined {
  if (!msg.isError) return undefined;
  const images = content.filter((block) => block.type === "image");
  if (images.length === 0) return undefined;
  return {
    content: replaceImages(content, ERROR_TOOL_IMAGE_PLACEHOLDER),
    caption: `Images from the error result of tool call ${String(msg.toolCallId)} (${String(msg.toolName)}):`,
    images,
  };
}
