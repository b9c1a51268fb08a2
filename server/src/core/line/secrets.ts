/**
 * Credentials in one line of a session: API keys and tokens in their vendors' formats, private key
 * blocks, passwords in URLs, `.env`-style assignments, and high-entropy values right after a word
 * such as `token` or `secret`.
 *
 * The scan reads the line's raw JSON text, not its decoded strings, so a match is at once the range
 * the editor shows (UTF-16 offsets within the line) and the characters `redact` replaces. Pi writes
 * its lines with `JSON.stringify`, which escapes only quotes, backslashes and control characters;
 * the characters of a token need none of these, so a token reads the same in both forms. The token
 * classes below leave out `"` and `\`, so that a match never crosses the end of a JSON string or
 * cuts an escape in half; a private key block, whose lines are joined by `\n` escapes, is the one
 * match that spans escapes, and it starts and ends on a `-`.
 *
 * Every pattern is linear: each alternative starts with a literal or a one-character class, every
 * quantifier has an upper bound, and none is nested, so the time per line is proportional to its
 * length whatever its bytes. The vendor formats follow gitleaks' rules (config/gitleaks.toml: ids
 * anthropic-api-key, openai-api-key, github-pat, github-oauth, github-app-token,
 * github-fine-grained-pat, aws-access-token, gcp-api-key, slack-bot-token, slack-user-token,
 * stripe-access-token, npm-access-token, jwt, private-key, generic-api-key), loosened on lengths
 * where a vendor has changed them, and bounded where gitleaks leaves them open.
 */

import { nextAnchor } from "./secretAnchors";

export type SecretKind =
  | "anthropic-api-key"
  | "openai-api-key"
  | "github-token"
  | "aws-access-key-id"
  | "aws-secret-access-key"
  | "google-api-key"
  | "slack-token"
  | "stripe-key"
  | "npm-token"
  | "jwt"
  | "private-key"
  | "url-password"
  | "env-assignment"
  | "generic-secret";

/** What each kind is called in a message. */
export const SECRET_KIND_NAMES: Record<SecretKind, string> = {
  "anthropic-api-key": "an Anthropic API key",
  "openai-api-key": "an OpenAI-style API key",
  "github-token": "a GitHub token",
  "aws-access-key-id": "an AWS access key id",
  "aws-secret-access-key": "an AWS secret access key",
  "google-api-key": "a Google API key",
  "slack-token": "a Slack token",
  "stripe-key": "a Stripe secret key",
  "npm-token": "an npm token",
  jwt: "a JSON Web Token",
  "private-key": "a private key",
  "url-password": "a password in a URL",
  "env-assignment": "a credential assigned to a variable",
  "generic-secret": "a high-entropy value after a credential's name",
};

/** A credential found in a line: its kind and its UTF-16 offsets in the line's text. */
export interface SecretMatch {
  kind: SecretKind;
  start: number;
  end: number;
  /** How many characters at its start are the vendor's fixed prefix, which a masked form may show. */
  prefix: number;
}

/** At most this many credentials are reported per line; the rest of a hostile line is not scanned. */
export const MAX_SECRETS_PER_LINE = 100;

/** A vendor's format: the token in full, matched where a word starts. */
interface Vendor {
  kind: SecretKind;
  token: RegExp;
  /** How many characters of the token are the vendor's fixed prefix. */
  prefix: number;
}

function vendor(kind: SecretKind, token: string, prefix: number): Vendor {
  return { kind, token: new RegExp(`${token}(?![A-Za-z0-9_-])`, "y"), prefix };
}

const VENDORS: readonly Vendor[] = [
  vendor("anthropic-api-key", "sk-ant-[a-z]{2,8}[0-9]{0,3}-[A-Za-z0-9_-]{20,300}", 7),
  vendor("openai-api-key", "sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,300}|[A-Za-z0-9]{32,300})", 3),
  vendor("github-token", "gh[pousr]_[A-Za-z0-9]{36,251}", 4),
  vendor("github-token", "github_pat_[A-Za-z0-9_]{22,255}", 11),
  vendor("aws-access-key-id", "(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}", 4),
  vendor("google-api-key", "AIza[A-Za-z0-9_-]{35}", 4),
  vendor("slack-token", "xox[abposre]-[0-9]{6,16}-[A-Za-z0-9-]{8,250}", 5),
  vendor("stripe-key", "[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,99}", 8),
  vendor("npm-token", "npm_[A-Za-z0-9]{36}", 4),
  vendor("jwt", "eyJ[A-Za-z0-9_-]{10,4000}\\.eyJ[A-Za-z0-9_-]{10,16000}\\.[A-Za-z0-9_-]{10,4000}", 3),
];

/** The vendors' prefixes, in their case (the anchors ignore case, for the names; see `secretAnchors.ts`). */
const VENDOR_PREFIX = /^(?:sk-|gh[pousr]_|github_pat_|A(?:KIA|SIA|BIA|CCA|3T|Iza)|xox[abposre]-|[sr]k_(?:live|test|prod)_|npm_|eyJ)$/;

/** The characters of a word: a token's, and a credential's name's. */
const WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) WORD[c] = /[A-Za-z0-9_-]/.test(String.fromCharCode(c)) ? 1 : 0;

function isWord(c: number): boolean {
  return c < 128 && WORD[c] === 1;
}

/** How many anchors are looked at per line: a hostile line of them costs a bounded time. */
const MAX_ANCHORS = 50_000;

/** An image's base64 data of at least this many characters is not scanned: it holds no text. */
const MIN_BLOB = 1024;

const BASE64_RUN = /[A-Za-z0-9+/=]*/y;

/**
 * The credentials in `text`, a line's raw JSON text, in order and without overlaps. A fast scan
 * finds each anchor (see `secretAnchors.ts`), and the few characters around it are checked with
 * sticky expressions of bounded length: a line costs one pass and a bounded time per anchor.
 */
export function findSecrets(text: string): SecretMatch[] {
  let found: SecretMatch[] = [];
  let from = 0;
  for (let n = 0; n < MAX_ANCHORS && found.length < MAX_SECRETS_PER_LINE; n++) {
    const m = nextAnchor(text, from);
    if (!m) break;
    const at = m.index;
    const hit = m.hit;
    from = at + hit.length;
    valueEnd = 0;
    if (hit === '"data":"') {
      BASE64_RUN.lastIndex = at + 8;
      const run = BASE64_RUN.exec(text)![0].length;
      if (run >= MIN_BLOB) from = at + 8 + run;
      continue;
    }
    const match =
      hit === "-----BEGIN "
        ? privateKey(text, at)
        : hit === "://"
          ? urlPassword(text, at)
          : VENDOR_PREFIX.test(hit)
            ? vendorAt(text, at)
            : nameAt(text, at, at + hit.length);
    if (match) {
      found.push(match);
      from = Math.max(from, match.end);
    } else if (valueEnd > from) {
      // A run of value characters cut by its bound is not looked at again from a name inside it.
      from = valueEnd;
    }
  }
  if (found.length > 1) found = withoutOverlaps(found);
  return found;
}

/** Where the last value `valueAfter` read and refused as cut ended (see `findSecrets`). */
let valueEnd = 0;

/** Sorted by start; of two that overlap, the earlier (or, starting together, the longer) is kept. */
function withoutOverlaps(found: SecretMatch[]): SecretMatch[] {
  found.sort((x, y) => x.start - y.start || y.end - x.end);
  const kept: SecretMatch[] = [];
  for (const f of found) if (kept.length === 0 || f.start >= kept[kept.length - 1]!.end) kept.push(f);
  return kept;
}

/** Whether a token may start at `at`: at the start of a word, or right after an escape (`\n`, `\t`) of the JSON text. */
function startsWord(text: string, at: number): boolean {
  if (at === 0 || !isWord(text.charCodeAt(at - 1))) return true;
  return at >= 2 && text.charCodeAt(at - 2) === 92 && /[nrt]/.test(text.charAt(at - 1));
}

/** The vendor token that starts at `at`, if any. */
function vendorAt(text: string, at: number): SecretMatch | undefined {
  if (!startsWord(text, at)) return undefined;
  for (const v of VENDORS) {
    v.token.lastIndex = at;
    const t = v.token.exec(text);
    if (!t) continue;
    // `sk-` alone starts many words and ids: a key has letters and digits.
    if (v.kind === "openai-api-key" && !(/[0-9]/.test(t[0]) && /[A-Za-z]/.test(t[0].slice(3)))) continue;
    // Vendors' documented examples (AWS's `AKIAIOSFODNN7EXAMPLE`) are no one's key.
    if (t[0].includes("EXAMPLE")) return undefined;
    return { kind: v.kind, start: at, end: at + t[0].length, prefix: v.prefix };
  }
  return undefined;
}

/** The word around a credential's name found at `[at, end)`: the name, then the value it is given, if it looks like a secret. */
function nameAt(text: string, at: number, nameEnd: number): SecretMatch | undefined {
  let start = at;
  while (start > 0 && at - start < 60 && isWord(text.charCodeAt(start - 1))) start--;
  // A word right after an escape (`\n`) starts after the escape's letter.
  if (start > 0 && text.charCodeAt(start - 1) === 92 && /[nrt]/.test(text.charAt(start))) start++;
  let end = nameEnd;
  while (end < text.length && end - nameEnd < 30 && isWord(text.charCodeAt(end))) end++;
  // The name is followed by `=` or `:`, maybe after a quote (`\"token\": `) and spaces; or it is `Bearer ` or `token `.
  let j = end;
  // JSON inside a JSON string escapes its quotes once per level (`\\\"token\\\":`).
  while (j < end + 7 && text.charCodeAt(j) === 92) j++;
  if (text.charCodeAt(j) === 34 || text.charCodeAt(j) === 39) j++;
  while (j < end + 6 && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
  const sep = text.charCodeAt(j);
  if (sep !== 61 && sep !== 58) {
    const spaced = text.charCodeAt(end) === 32 && /^(?:bearer|token)$/i.test(text.slice(start, end));
    return spaced ? afterName(text, start, end) : undefined;
  }
  return afterName(text, start, end);
}

/** What follows a credential's name `[start, end)`: an `.env` assignment, AWS's secret key, or a value that looks random. */
function afterName(text: string, start: number, end: number): SecretMatch | undefined {
  const name = text.slice(start, end);
  if (/aws/i.test(name) && /secret|access_?key/i.test(name)) {
    const aws = valueAfter(text, end, "aws-secret-access-key", (v) => /^[A-Za-z0-9/+]{40}$/.test(v) && looksRandom(v, 3.5));
    if (aws) return aws;
  }
  // Uppercase only: `API_KEY=`, not `apiKey =` in code (the generic rule reads that one).
  // A value that repeats its name is code (`HttpApiKeyAuth=HttpApiKeyAuth2`, minified exports).
  const lower = name.toLowerCase();
  const named = (v: string) => v.toLowerCase().includes(lower);
  if (ENV_NAME.test(name)) {
    const env = valueAfter(text, end, "env-assignment", (v) => envValue(v) && !named(v), true);
    if (env) return env;
  }
  return valueAfter(text, end, "generic-secret", (v) => v.length >= 16 && looksRandom(v, 3.5) && !looksLikeId(v) && !named(v) && !/[#@]/.test(v));
}

/** An `.env` name: uppercase, ending with what it holds. */
const ENV_NAME = /^[A-Z0-9_]{0,50}(?:API_?KEY|ACCESS_?KEY|SECRET(?:_?KEY)?|TOKEN|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|AUTH)$/;

/**
 * The value after a credential's name: the rest of the name (`_ID`, `Key`), a quote, `=` or `:`
 * (or, after `Bearer`, a space), a quote, then the value's characters. All bounded.
 */
const AFTER_NAME = /[A-Za-z0-9_.-]{0,20}(?:\\{0,7}["'])?(?:[ \t]{0,3}(?:=>|:=|[=:])[ \t]{0,3}|(?<=bearer|token)[ \t]{1,3})(?:\\{0,7}["'])?/iy;
const VALUE = /[A-Za-z0-9_+/=.~!@#%^*-]{1,300}/y;

const HAS_LETTER = /[A-Za-z]/;

function valueAfter(text: string, from: number, kind: SecretKind, accept: (value: string) => boolean, strictName = false): SecretMatch | undefined {
  AFTER_NAME.lastIndex = from;
  const sep = AFTER_NAME.exec(text);
  if (!sep) return undefined;
  // `.env` lines name the credential in full: `OPENAI_API_KEY=`, nothing between the keyword and `=`.
  if (strictName && /^[A-Za-z0-9_.-]/.test(sep[0])) return undefined;
  VALUE.lastIndex = from + sep[0].length;
  const value = VALUE.exec(text);
  if (!value) return undefined;
  const end = value.index + value[0].length;
  // A value cut by the bound is not one token; the names inside it are not looked at again.
  if (/[A-Za-z0-9_+/=.~!@#%^*-]/.test(text.charAt(end))) {
    valueEnd = Math.max(valueEnd, end);
    return undefined;
  }
  // Code, not a value: a call or an index (`scanner.getToken()`, `tokens[0]`).
  if (/[([]/.test(text.charAt(end))) return undefined;
  let v = value[0];
  // A sentence's full stop is not part of the value.
  while (v.endsWith(".")) v = v.slice(0, -1);
  // A value without a letter (a count: every usage's `"totalTokens":1234`) is no credential: every
  // vendor's token starts with letters, and each kind's test wants a letter (`looksRandom`).
  if (!HAS_LETTER.test(v)) return undefined;
  const vendor = vendorOf(v);
  if (vendor) return { kind: vendor.kind, start: value.index, end: value.index + v.length, prefix: vendor.prefix };
  if (!accept(v)) return undefined;
  return { kind, start: value.index, end: value.index + v.length, prefix: 0 };
}

/** The vendor format `value` is in, whole, if any: `GITHUB_TOKEN=ghp_…` is a GitHub token. */
function vendorOf(value: string): { kind: SecretKind; prefix: number } | undefined {
  const match = vendorAt(value, 0);
  return match && match.end === value.length ? match : undefined;
}

/** Values that name a credential without being one: templates, references to other variables, code. */
const PLACEHOLDER =
  /^(?:x+|\*+|\.+|0+|your[\w-]*|change[_-]?me|example[\w-]*|dummy[\w-]*|fake[\w-]*|test[\w-]*|sample[\w-]*|placeholder[\w-]*|redacted[\w-]*|null|none|true|false|undefined|string|secret|password|token)$/i;

function placeholder(v: string): boolean {
  return PLACEHOLDER.test(v) || v.toLowerCase().includes("xxxx") || v.includes("REDACTED");
}

function envValue(v: string): boolean {
  if (v.length < 8 || placeholder(v) || /^[a-z]+(?:[_.-][a-z0-9]+)*$/.test(v) || /^[A-Z][a-z]+(?:[A-Z][a-z]+)+$/.test(v) || wordy(v)) return false;
  // Another variable (`$TOKEN`, `OTHER_VAR`), a dotted reference (`settings.SECRET_KEY`), a path.
  if (/^[A-Z][A-Z0-9_]*$/.test(v) || /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(v) || /^[./~]/.test(v)) return false;
  return looksRandom(v, 2.5) && (/[0-9]/.test(v) || (/[A-Z]/.test(v) && /[a-z]/.test(v)) || /[^A-Za-z0-9]/.test(v));
}

/** Hashes (git's, SHA-256), UUIDs, Pi's entry ids, numbers, words joined by dashes, paths: what follows `token` in a session but is no secret. */
function looksLikeId(v: string): boolean {
  return (
    /^[0-9a-f]+$/i.test(v) ||
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v) ||
    /^[0-9._-]+$/.test(v) ||
    /^[a-z]+(?:[_.-][a-z0-9]+)*$/.test(v) ||
    /^[A-Z][A-Z0-9_]*$/.test(v) ||
    /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(v) ||
    v.includes("/") ||
    wordy(v) ||
    placeholder(v)
  );
}

/**
 * Whether `v` reads as words (`CreateOAuth2TokenCommand`): at least half of its characters are in
 * lowercase runs of four or more, which a random token of letters and digits almost never has (a
 * run of four is 1 in 30 at each place; at 40%, 1 in 40 random 16-character values was refused).
 */
function wordy(v: string): boolean {
  let inRuns = 0;
  let run = 0;
  for (let i = 0; i <= v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 97 && c <= 122) run++;
    else {
      if (run >= 4) inRuns += run;
      run = 0;
    }
  }
  return inRuns >= v.length * 0.5;
}

/** Whether `v` mixes letters and digits with at least `bits` of Shannon entropy per character. */
function looksRandom(v: string, bits: number): boolean {
  if (!/[0-9]/.test(v) && bits > 3) return false;
  if (!/[A-Za-z]/.test(v)) return false;
  return entropy(v) >= bits;
}

export function entropy(v: string): number {
  const counts = new Map<string, number>();
  for (const c of v) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / v.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** A private key block: from `-----BEGIN` to the end of its `-----END … KEY-----`, or to the end of its body if cut. */
const PEM_HEADER = /-----BEGIN (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----/y;

function privateKey(text: string, start: number): SecretMatch | undefined {
  PEM_HEADER.lastIndex = start;
  const header = PEM_HEADER.exec(text);
  if (!header) return undefined;
  const headerEnd = start + header[0].length;
  // The body: base64, PEM headers (`Proc-Type: 4,ENCRYPTED`), spaces, and the `\n` escapes that join its lines.
  const body = /(?:[A-Za-z0-9+/=:,. \t-]|\\[nrt]){0,16000}/y;
  body.lastIndex = headerEnd;
  const run = body.exec(text);
  let end = run ? headerEnd + run[0].length : headerEnd;
  // The footer is looked for inside the body's run only, so a line of headers costs its length once.
  const close = text.slice(headerEnd, end).indexOf("-----END");
  const footer = /-----END (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----/y;
  footer.lastIndex = headerEnd + close;
  const f = close < 0 ? null : footer.exec(text);
  if (f) end = headerEnd + close + f[0].length;
  // The run takes whole escapes only, so trimming spaces and dashes never leaves half of one.
  else while (end > headerEnd && /[\s-]/.test(text.charAt(end - 1))) end--;
  if (end - headerEnd < 16) return undefined;
  return { kind: "private-key", start, end, prefix: 0 };
}

const URL_USER_PASSWORD = /:\/\/([^\s:/?#@"\\]{1,100}):([^\s/?#@"\\]{1,200})@(?=[A-Za-z0-9[])/y;

function urlPassword(text: string, at: number): SecretMatch | undefined {
  // A scheme before `://`: letters, digits, `+`, `.` or `-`.
  if (!/[A-Za-z0-9+.-]/.test(text.charAt(at - 1))) return undefined;
  URL_USER_PASSWORD.lastIndex = at;
  const m = URL_USER_PASSWORD.exec(text);
  if (!m) return undefined;
  const password = m[2]!;
  // Shorter passwords are documentation's examples (`http://abc:xyz@example.com`).
  if (password.length < 6 || placeholder(password) || /^[<$%{[]|\*\*\*/.test(password) || /^[0-9]+$/.test(password)) return undefined;
  const start = at + 3 + m[1]!.length + 1;
  return { kind: "url-password", start, end: start + password.length, prefix: 0 };
}

/**
 * The secret as a message may show it: the vendor's prefix, an ellipsis, and the last four
 * characters of a value long enough that four of them give nothing away, else only its length.
 */
export function maskSecret(text: string, match: SecretMatch): string {
  const value = text.slice(match.start, match.end);
  if (match.kind === "private-key") return `${/^-----BEGIN [^-]{0,60}-----/.exec(value)?.[0] ?? "-----BEGIN"}…`;
  const prefix = value.slice(0, match.prefix);
  const rest = value.length - match.prefix;
  return rest >= 24 ? `${prefix}…${value.slice(-4)}` : `${prefix}…`;
}
