/**
 * POSIX path arithmetic as Node's `path.posix` does it, without touching the process: `resolve`
 * takes the working directory as an argument instead of asking `process.cwd()`.
 *
 * Pi computes where its sessions live with `path.join`, `path.resolve` and `fileURLToPath`; the
 * core reproduces those results exactly, so it carries its own copy of the algorithms (ported
 * from Node's `lib/path.js`) rather than importing `node:path`, which would tie the core to Node.
 * Windows paths are not modelled: Pi on Windows is out of scope for this server.
 */

/** Resolves `.` and `..` segments and collapses repeated slashes, as Node's `normalizeString`. */
function normalizeSegments(path: string, allowAboveRoot: boolean): string {
  let res = "";
  let lastSegmentLength = 0;
  let lastSlash = -1;
  let dots = 0;
  let code = 0;
  for (let i = 0; i <= path.length; ++i) {
    if (i < path.length) code = path.charCodeAt(i);
    else if (code === 47) break;
    else code = 47;
    if (code === 47) {
      if (lastSlash === i - 1 || dots === 1) {
        // A repeated slash or a "." segment adds nothing.
      } else if (dots === 2) {
        if (res.length < 2 || lastSegmentLength !== 2 || res.charCodeAt(res.length - 1) !== 46 || res.charCodeAt(res.length - 2) !== 46) {
          if (res.length > 2) {
            const lastSlashIndex = res.lastIndexOf("/");
            if (lastSlashIndex === -1) {
              res = "";
              lastSegmentLength = 0;
            } else {
              res = res.slice(0, lastSlashIndex);
              lastSegmentLength = res.length - 1 - res.lastIndexOf("/");
            }
            lastSlash = i;
            dots = 0;
            continue;
          }
          if (res.length !== 0) {
            res = "";
            lastSegmentLength = 0;
            lastSlash = i;
            dots = 0;
            continue;
          }
        }
        if (allowAboveRoot) {
          res += res.length > 0 ? "/.." : "..";
          lastSegmentLength = 2;
        }
      } else {
        if (res.length > 0) res += `/${path.slice(lastSlash + 1, i)}`;
        else res = path.slice(lastSlash + 1, i);
        lastSegmentLength = i - lastSlash - 1;
      }
      lastSlash = i;
      dots = 0;
    } else if (code === 46 && dots !== -1) {
      ++dots;
    } else {
      dots = -1;
    }
  }
  return res;
}

export function isAbsolute(path: string): boolean {
  return path.charCodeAt(0) === 47;
}

/** `path.posix.normalize`. */
export function normalize(path: string): string {
  if (path.length === 0) return ".";
  const absolute = isAbsolute(path);
  const trailingSeparator = path.charCodeAt(path.length - 1) === 47;
  let out = normalizeSegments(path, !absolute);
  if (out.length === 0) {
    if (absolute) return "/";
    return trailingSeparator ? "./" : ".";
  }
  if (trailingSeparator) out += "/";
  return absolute ? `/${out}` : out;
}

/** `path.posix.join`. */
export function join(...parts: string[]): string {
  const joined = parts.filter((p) => p.length > 0).join("/");
  return joined.length === 0 ? "." : normalize(joined);
}

/** `path.posix.resolve(...parts)` in a process whose working directory is `cwd` (absolute). */
export function resolveFrom(cwd: string, ...parts: string[]): string {
  let resolved = "";
  let absolute = false;
  for (let i = parts.length - 1; i >= -1 && !absolute; i--) {
    const part = i >= 0 ? parts[i]! : cwd;
    if (part.length === 0) continue;
    resolved = `${part}/${resolved}`;
    absolute = isAbsolute(part);
  }
  resolved = normalizeSegments(resolved, !absolute);
  if (absolute) return `/${resolved}`;
  return resolved.length > 0 ? resolved : ".";
}

/** `path.posix.dirname`. */
export function dirname(path: string): string {
  if (path.length === 0) return ".";
  const hasRoot = isAbsolute(path);
  let end = -1;
  let matchedSlash = true;
  for (let i = path.length - 1; i >= 1; --i) {
    if (path.charCodeAt(i) === 47) {
      if (!matchedSlash) {
        end = i;
        break;
      }
    } else {
      matchedSlash = false;
    }
  }
  if (end === -1) return hasRoot ? "/" : ".";
  if (hasRoot && end === 1) return "//";
  return path.slice(0, end);
}

/** `path.posix.basename` without the suffix argument. */
export function basename(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
  const start = path.lastIndexOf("/", end - 1) + 1;
  return path.slice(start, end);
}

/**
 * `url.fileURLToPath` on POSIX: a `file:` URL with an empty host, percent-decoded. Throws, as
 * Node does, on another host or an encoded "/" (`%2F`), and when the text is not a URL.
 */
export function fileUrlToPath(text: string): string {
  const url = new URL(text);
  if (url.protocol !== "file:") throw new TypeError(`The URL must be of scheme file: ${text}`);
  if (url.hostname !== "") throw new TypeError(`File URL host must be "localhost" or empty on this platform: ${text}`);
  const pathname = url.pathname;
  for (let n = 0; n < pathname.length; n++) {
    if (pathname[n] === "%") {
      const third = pathname.codePointAt(n + 2)! | 0x20;
      if (pathname[n + 1] === "2" && third === 102) throw new TypeError(`File URL path must not include encoded / characters: ${text}`);
    }
  }
  return decodeURIComponent(pathname);
}

/**
 * The file a document's URI names, or undefined when it names none: another scheme (`untitled:`),
 * a host, or a `file:` URI without a "/" after the scheme (`file:x.jsonl`). RFC 8089 allows a file
 * URI only an absolute path, and `new URL` would read `file:x.jsonl` as `/x.jsonl`: a client's
 * relative name would have the server resolve links, forks and session folders against `/`. Such a
 * document is one with no path, like an untitled one.
 */
export function documentPath(uri: string): string | undefined {
  if (!/^file:\//i.test(uri)) return undefined;
  try {
    return fileUrlToPath(uri);
  } catch {
    return undefined;
  }
}
