/**
 * A regular expression whose tests are bounded in time, for the `/resume` search of `find`.
 *
 * Pi compiles a `re:` query with `new RegExp(pattern, "i")` and tests it against each session's
 * name, id, messages and cwd; a pattern such as `(a+)+$` backtracks exponentially, and Pi's
 * `/resume` hangs on a message of forty `a`s. A search here must end, and V8 stops a running
 * regular expression only through a script's `timeout` (its linear engine, which V8 can fall back
 * to, does not take the `i` flag in Node 20). So each test runs as a tiny script with a timeout,
 * about a tenth of a millisecond a call, paid only by `re:` queries; the messages past what a
 * session's search holds at once are tested in batches (`testAny`), one call for a megabyte of
 * them. The first test of a pattern that runs out gives that pattern up for the rest of this
 * thread: it would cost as much on every further session, so the time a search spends on a
 * hostile pattern is one timeout per thread (a pattern that stays just under the limit costs at
 * most that limit a call). The sessions not searched are reported, never silently taken as not
 * matching.
 */

import { createContext, Script } from "node:vm";
import type { SearchRegex } from "../core/disk/regexMessages";

/** How long one test may run before the search gives the pattern up. */
export const REGEX_TEST_TIMEOUT_MS = 1000;

const context = createContext({ regex: null as RegExp | null, text: "", texts: [] as readonly string[] });
const testOne = new Script("regex.test(text)");
const testSome = new Script("texts.some((t) => regex.test(t))");

/** The patterns (source and flags) a test in this thread has run out of time on. */
const exhausted = new Set<string>();

export class BoundedRegex implements SearchRegex {
  /** A test of this regex ran out of time: the session's search stopped there. */
  timedOut = false;
  /** A test was skipped, the pattern having run out of time on an earlier session. */
  skipped = false;
  private readonly key: string;

  constructor(private readonly regex: RegExp) {
    this.key = `${regex.flags}/${regex.source}`;
  }

  test(text: string): boolean {
    context.text = text;
    return this.run(testOne);
  }

  testAny(texts: readonly string[]): boolean {
    context.texts = texts;
    return this.run(testSome);
  }

  private run(script: Script): boolean {
    try {
      if (exhausted.has(this.key)) {
        this.skipped = true;
        return false;
      }
      context.regex = this.regex;
      return script.runInContext(context, { timeout: REGEX_TEST_TIMEOUT_MS }) === true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ERR_SCRIPT_EXECUTION_TIMEOUT") throw error;
      exhausted.add(this.key);
      this.timedOut = true;
      return false;
    } finally {
      // The texts can be a session's 64 MiB of messages: the context must not keep them alive.
      context.regex = null;
      context.text = "";
      context.texts = [];
    }
  }
}
