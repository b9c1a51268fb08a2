// Types for images.mjs (plain JavaScript, imported by validate.mjs).

export function imageDimensions(bytes: Buffer): { width: number; height: number } | undefined;
export function inlineImage(
  mediaType: string,
  base64: string,
): { mediaType: string; base64Bytes: number; bytes: number; dimensions: { width: number; height: number } | undefined };
export function dataUrlImage(url: unknown): ReturnType<typeof inlineImage> | undefined;
