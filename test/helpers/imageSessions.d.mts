// Types for imageSessions.mjs (plain JavaScript so that the real-Pi tests can import it without a build).

export interface ImageSessionOptions {
  turns?: number;
  branchEvery?: number;
  compactAt?: number;
  imageBytes?: number;
  outputBytes?: number;
}
export function imageSessionLines(options?: ImageSessionOptions): Generator<string>;
export function imageSession(options?: ImageSessionOptions): string;
export function writeImageSession(path: string, options?: ImageSessionOptions): number;
