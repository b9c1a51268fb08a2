/**
 * Lines whose credentials are looked for when their findings are first read, not when they are
 * parsed.
 *
 * A large session's first diagnostics are its structure (`features/diagnostics.ts`), which reads
 * no line's own findings; the rest follow between requests. Of a line's checks, the search for
 * credentials in its text (`findSecrets`) takes two thirds of the time, about 100 ms on a 45 MB
 * session: done at the parse, it held back the first answer. It reads the text alone, so it can
 * wait: such a line's `findings` are `parseLine`'s own once read, the credentials found then.
 */

import type { Steps } from "../base/steps";
import type { LineFacts, ParsedLine } from "./facts";
import { addSecretFindings, type LineFinding } from "./findings";
import { parseLineWith } from "./parse";
import { ParsedValueLine } from "./record";

/** A parsed line whose credentials are found when its findings are first read. */
export class SecretsDeferredLine extends ParsedValueLine {
  /** The findings with the credentials' (as `checkLine` orders them), once read. */
  private complete: readonly LineFinding[] | undefined;

  override get findings(): readonly LineFinding[] {
    if (this.complete === undefined) {
      const others = super.findings;
      const secrets: LineFinding[] = [];
      // `parseLine` checks only a line that is an object, its credentials included.
      if (this.isObject) addSecretFindings(this.text, secrets);
      // Most lines hold none: they keep the array they had (often the shared empty one).
      this.complete = secrets.length === 0 ? others : [...others, ...secrets];
    }
    return this.complete;
  }

  /** Whether the credentials were looked for (the findings were read). */
  get secretsFound(): boolean {
    return this.complete !== undefined;
  }
}

const makeDeferred = (text: string, facts: LineFacts): SecretsDeferredLine => new SecretsDeferredLine(text, facts);

/** `parseLine(text)`, the credentials' findings made when first read. */
export function parseLineDeferringSecrets(text: string): ParsedLine {
  return parseLineWith(text, makeDeferred, true, false);
}

/** About this many characters of text are searched between two steps. */
const CHARS_PER_STEP = 4_000_000;

/**
 * Whether some line of a document may still have its credentials to find. The document's clones
 * share it, as they share its parsed lines; an edit adds only lines parsed at once. So once every
 * line was searched, none is left, and the diagnostics after each keystroke do not walk 50,000
 * lines to find none. (A line missed by the walk, say one moved by an edit between two steps, is
 * still searched when its findings are read: the walk only does the work early, in steps.) A
 * document without one (made without the constructor, as the streamed check's is) has none pending.
 */
export interface SecretsToFind {
  pending: boolean;
}

/** Finds the deferred credentials of every line, yielding between pieces of the work, so that a reader of every line's findings then waits for none. */
export function* findDeferredSecrets(parsed: readonly ParsedLine[], toFind: SecretsToFind | undefined): Steps<void> {
  if (!toFind?.pending) return;
  let searched = 0;
  for (const line of parsed) {
    if (!(line instanceof SecretsDeferredLine) || line.secretsFound) continue;
    void line.findings;
    searched += line.text.length;
    if (searched >= CHARS_PER_STEP) {
      searched = 0;
      yield;
    }
  }
  toFind.pending = false;
}
