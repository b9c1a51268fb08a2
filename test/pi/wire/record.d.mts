// Types for record.mjs (plain JavaScript so that it runs without a build).

export interface WireRecording {
  fixture: string;
  pi: string;
  api: string;
  model: string;
  outcome: "sent" | "not-sent";
  error?: string;
  requests: { path: string; body: unknown }[];
}

export function findPi(): { node: string; cli: string; packageDir: string };
export function ownModel(fixture: string, api: string): string | undefined;
export function fixtureNames(): string[];
export function recordOne(pi: { node: string; cli: string; packageDir: string }, fixture: string, api: string): Promise<WireRecording>;
export function recordingPath(fixture: string, api: string): string;
