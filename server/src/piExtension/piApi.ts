/**
 * The part of Pi 1.6's extension API this extension uses, written out (Pi's own types come with Pi,
 * which this package does not depend on): `docs/extensions.md` of Pi 1.6 describes each member.
 */

export type NotifyType = "info" | "warning" | "error";

export interface PiUi {
  notify(message: string, type?: NotifyType): void;
  select(title: string, options: string[]): Promise<string | undefined>;
}

export interface PiSessionManager {
  getSessionFile(): string | undefined;
  getLeafId(): string | null | undefined;
  /** The entries from the root to Pi's current leaf (in memory: a /tree move is here before it is in the file). */
  getBranch(): readonly { id: string }[];
}

export interface PiContext {
  ui: PiUi;
  /** "tui", "rpc", "json" or "print". */
  mode?: string;
  hasUI: boolean;
  sessionManager: PiSessionManager;
}

export interface PiCommandContext extends PiContext {
  waitForIdle(): Promise<void>;
  navigateTree(targetId: string, options?: { summarize?: boolean }): Promise<{ cancelled?: boolean } | undefined>;
  switchSession(sessionPath: string, options?: { withSession?: (ctx: PiContext) => Promise<void> }): Promise<{ cancelled?: boolean } | undefined>;
}

export interface SessionStartEvent {
  reason: "startup" | "reload" | "new" | "resume" | "fork";
}

export interface ProviderRequestEvent {
  payload: unknown;
}

export interface PiExtensionApi {
  on(event: "session_start", handler: (event: SessionStartEvent, ctx: PiContext) => unknown): void;
  on(event: "session_shutdown", handler: () => unknown): void;
  on(event: "before_provider_request", handler: (event: ProviderRequestEvent, ctx: PiContext) => unknown): void;
  registerCommand(name: string, options: { description: string; handler: (args: string, ctx: PiCommandContext) => Promise<void> }): void;
  appendEntry(customType: string, data?: unknown): void;
}
