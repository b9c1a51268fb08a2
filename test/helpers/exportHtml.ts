/**
 * What the tests of `export` check in every page it writes: the page is made of the tags and
 * attributes the exporter writes and nothing else. Every `<` outside the style and the script
 * opens one of `TAGS`, every attribute is one of `ATTRIBUTES` with a quoted value, no attribute is
 * a link or an event handler, an image's source is a `data:` URL of base64, and the one script is
 * the page's own. A session value that escaped its escaping shows up here as an unknown tag or
 * attribute.
 */

import { createHash } from "node:crypto";
import { PAGE_SCRIPT } from "../../server/src/features/export/htmlPage";

const TAGS = new Set([
  "html",
  "head",
  "meta",
  "title",
  "style",
  "body",
  "nav",
  "h1",
  "h2",
  "h3",
  "ol",
  "ul",
  "li",
  "button",
  "br",
  "small",
  "main",
  "p",
  "section",
  "div",
  "code",
  "bdi",
  "span",
  "pre",
  "details",
  "summary",
  "figure",
  "img",
  "figcaption",
  "i",
  "b",
  "script",
]);
const ATTRIBUTES = new Set([
  "lang",
  "charset",
  "http-equiv",
  "content",
  "name",
  "class",
  "id",
  "data-p",
  "data-leaf",
  "data-resumed",
  "data-all",
  "type",
  "dir",
  "alt",
  "src",
]);
const IMAGE_SOURCE = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/;

export interface PageFacts {
  /** Each tag's name, in order. */
  tags: string[];
  /** Number of images shown. */
  images: number;
  /** The Content-Security-Policy the page declares. */
  policy: string;
}

/** Checks `html` as the module's comment says, and returns what it found; throws on the first fault. */
export function checkPage(html: string): PageFacts {
  if (!html.startsWith("<!DOCTYPE html>\n")) throw new Error("the page does not start with its doctype");
  if (!html.endsWith("</body></html>\n")) throw new Error("the page is not closed");
  const scriptAt = html.indexOf("<script>");
  if (scriptAt < 0 || html.indexOf("<script", scriptAt + 1) >= 0) throw new Error("the page has not exactly one script");
  const scriptEnd = html.indexOf("</script>", scriptAt);
  if (html.slice(scriptAt + "<script>".length, scriptEnd) !== PAGE_SCRIPT) throw new Error("the script is not the page's own");
  const styleAt = html.indexOf("<style>");
  const styleEnd = html.indexOf("</style>");
  if (html.slice(styleAt + 7, styleEnd).includes("<")) throw new Error("the style holds a <");
  const facts: PageFacts = { tags: [], images: 0, policy: "" };
  // The style and the script checked above, what is left is markup and escaped text.
  const rest = html.slice(0, styleAt + 7) + html.slice(styleEnd, scriptAt + 8) + html.slice(scriptEnd);
  let i = "<!DOCTYPE html>".length;
  for (let at = rest.indexOf("<", i); at >= 0; at = rest.indexOf("<", i)) {
    const close = rest.indexOf(">", at);
    const tag = rest.slice(at, close + 1);
    const m = /^<(\/?)([a-z0-9]+)((?:\s+[a-z-]+(?:="[^"<>]*")?)*)>$/.exec(tag);
    if (!m || !TAGS.has(m[2]!)) throw new Error(`unexpected markup at ${at}: ${tag.slice(0, 120)}`);
    facts.tags.push(`${m[1]}${m[2]}`);
    for (const a of m[3]!.matchAll(/\s+([a-z-]+)(?:="([^"]*)")?/g)) {
      const [, name, value] = a;
      if (!ATTRIBUTES.has(name!)) throw new Error(`unexpected attribute ${name} in ${tag.slice(0, 120)}`);
      if (name === "src") {
        if (m[2] !== "img" || !IMAGE_SOURCE.test(value ?? "")) throw new Error(`an image source that is not base64 data: ${tag.slice(0, 120)}`);
        facts.images++;
      }
      if ((name === "data-p" || name === "data-leaf") && !/^-?\d+$/.test(value ?? "")) throw new Error(`a data attribute that is not a number: ${tag}`);
      if (name === "id" && !/^(e\d+|branches|shown)$/.test(value ?? "")) throw new Error(`an id the exporter does not write: ${tag}`);
      if (name === "content" && m[2] === "meta" && tag.includes('http-equiv="Content-Security-Policy"')) facts.policy = value ?? "";
    }
    i = close + 1;
  }
  const hash = `sha256-${createHash("sha256").update(PAGE_SCRIPT, "utf8").digest("base64")}`;
  if (!facts.policy.startsWith("default-src 'none'") || !facts.policy.includes(`script-src '${hash}'`))
    throw new Error(`the policy does not allow the page's own script alone: ${facts.policy}`);
  return facts;
}
