/**
 * The page `export --format html` writes, opened in a real browser: Debian's Chromium, driven by
 * the playwright-core that test/clients/vscode/get-code-server.sh installs (PI_CODE_SERVER names its
 * folder, as for codeServer.ts). The session is the hostile one of test/helpers/hostileExport.ts:
 * script tags, `</script>` in strings, `onerror=` attributes, `javascript:` links, an SVG image,
 * bidirectional controls, a parent cycle, two branches and a 10 MB line. The page must render,
 * switch branches on a click, request nothing, run no code but its own (every payload would set
 * `window.__pwned`; no dialog, no policy violation), keep its own text in order around right-to-left
 * text, and show the one real image. Without Chromium or playwright-core the tests fail and say
 * what to install.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostileExportSession } from "../../helpers/hostileExport";
import { requireEditor, SERVER_CLI } from "../harness";

const TOOLS = process.env.PI_CODE_SERVER ?? join(tmpdir(), "pi-session-code-server");
const PLAYWRIGHT = join(TOOLS, "playwright", "node_modules", "playwright-core");

interface Page {
  on(event: string, listener: (value: never) => void): void;
  addInitScript(script: string): Promise<void>;
  goto(url: string, options: object): Promise<unknown>;
  /** The value of a JavaScript expression in the page (a string: this project compiles without the DOM's types). */
  evaluate<T>(expression: string): Promise<T>;
  click(selector: string): Promise<void>;
  isVisible(selector: string): Promise<boolean>;
}
interface Browser {
  newPage(options: object): Promise<Page>;
  close(): Promise<void>;
}

const work = mkdtempSync(join(tmpdir(), "pi-session-export-browser-"));
const session = join(work, "hostile.jsonl");
const pagePath = join(work, "hostile.html");
let browser: Browser | undefined;
let page: Page;
/** Why the browser could not be set up: every test fails with it (a failed hook alone would mark them skipped). */
let setupError: Error | undefined;
const seen = { dialogs: [] as string[], console: [] as string[], errors: [] as string[], requests: [] as string[] };

beforeAll(async () => {
  try {
    await setUp();
  } catch (error) {
    setupError = error as Error;
  }
});

/** The page opened in Chromium, with every dialog, console message, error and request recorded. */
async function setUp(): Promise<void> {
  if (!existsSync(PLAYWRIGHT)) throw new Error(`playwright-core is not installed in ${TOOLS}: run test/clients/vscode/get-code-server.sh.`);
  requireEditor("chromium", "chromium");
  writeFileSync(session, hostileExportSession());
  const exported = spawnSync(process.execPath, [SERVER_CLI, "export", "--all", "--format", "html", "--out", pagePath, session], { encoding: "utf8" });
  if (exported.status !== 0) throw new Error(`export failed (${exported.status}): ${exported.stderr}`);
  const { chromium } = require(PLAYWRIGHT) as { chromium: { launch(options: object): Promise<Browser> } };
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("dialog", (dialog: { message(): string; dismiss(): Promise<void> }) => {
    seen.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("console", (message: { text(): string }) => void seen.console.push(message.text()));
  page.on("pageerror", (error: Error) => void seen.errors.push(error.message));
  page.on("request", (request: { url(): string }) => void seen.requests.push(request.url()));
  // Installed by the browser before the page's own code, outside its policy: it records every violation.
  await page.addInitScript(
    'window.__violations = []; document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI));',
  );
  await page.goto(pathToFileURL(pagePath).href, { waitUntil: "load", timeout: 60_000 });
}

afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

/**
 * The text of the entries shown (not `hidden` by the page's script). Read from the DOM, not from
 * `innerText`: the page leaves entries off screen unrendered (`content-visibility: auto`).
 */
const visibleTexts = () =>
  page.evaluate<string>('[...document.querySelectorAll("section.entry")].filter((s) => !s.hidden).map((s) => s.textContent).join("\\n")');

describe("export --format html in Chromium", () => {
  it("renders the branch Pi resumes, with the 10 MB line cut and the one real image shown", async () => {
    if (setupError) throw setupError;
    expect(await page.isVisible("h1")).toBe(true);
    const text = await visibleTexts();
    expect(text).toContain("BRANCH-B-TEXT");
    expect(text).not.toContain("BRANCH-A-TEXT");
    expect(text).toContain("HUGE-START");
    expect(text).toContain("9,485,771 more characters not shown");
    const images = await page.evaluate("[...document.images].map((img) => ({ complete: img.complete, width: img.naturalWidth }))");
    expect(images).toEqual([{ complete: true, width: 1 }]);
  });

  it("shows the other branch's messages when it is chosen, and back", async () => {
    if (setupError) throw setupError;
    const leafA = await page.evaluate<number>('[...document.querySelectorAll("button[data-leaf]")].findIndex((b) => b.textContent.includes("BRANCH-A-TEXT"))');
    expect(leafA).toBeGreaterThanOrEqual(0);
    await page.click(`nav li:nth-child(${leafA + 1}) button`);
    let text = await visibleTexts();
    expect(text).toContain("BRANCH-A-TEXT");
    expect(text).not.toContain("BRANCH-B-TEXT");
    expect(text).not.toContain("HUGE-START");
    expect(text).toContain("BIDI: abc");
    expect(await page.isVisible('pre:has-text("BRANCH-A-TEXT")')).toBe(true);
    await page.click("button[data-resumed]");
    text = await visibleTexts();
    expect(text).toContain("BRANCH-B-TEXT");
    expect(text).not.toContain("BRANCH-A-TEXT");
    expect(await page.isVisible('pre:has-text("BRANCH-A-TEXT")')).toBe(false);
    expect(await page.evaluate('document.querySelector("button[data-resumed]").getAttribute("aria-pressed")')).toBe("true");
  });

  it("runs no code from the session, requests nothing, and makes no link", async () => {
    if (setupError) throw setupError;
    // Every fold opened and every branch chosen, so that whatever the session holds is on screen.
    await page.evaluate('document.querySelectorAll("details").forEach((d) => { d.open = true; })');
    const buttons = await page.evaluate<number>('document.querySelectorAll("button[data-leaf]").length');
    expect(buttons).toBe(3);
    for (let i = 1; i <= buttons; i++) await page.click(`nav li:nth-child(${i}) button`);
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
    expect(await page.evaluate("window.__violations")).toEqual([]);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    expect(seen.console.filter((m) => /Content Security Policy|Refused/i.test(m))).toEqual([]);
    expect(seen.requests).toEqual([pathToFileURL(pagePath).href]);
    expect(await page.evaluate('document.querySelectorAll("a, iframe, object, embed, form, svg").length')).toBe(0);
    expect(await page.evaluate('document.querySelectorAll("script").length')).toBe(1);
    const link = await page.evaluate<{ text: string; inLink: boolean }>(`(() => {
      const pre = [...document.querySelectorAll("pre")].find((p) => p.textContent.includes("JAVASCRIPT-LINK"));
      return { text: pre ? pre.textContent : "", inLink: pre ? pre.closest("a") !== null : true };
    })()`);
    expect(link.text).toContain(`<a href="javascript:window.__pwned='a'">JAVASCRIPT-LINK</a>`);
    expect(link.inLink).toBe(false);
  });

  it("shows bidi controls as marks and keeps the page's own text in order around them", async () => {
    if (setupError) throw setupError;
    await page.click("button[data-resumed]");
    const layout = await page.evaluate<{ lineWord: number; code: number[]; type: number; body: string; marks: string[] } | undefined>(`(() => {
      const section = [...document.querySelectorAll("section.entry")].find((s) => (s.querySelector(".meta code") || {}).textContent?.includes("U+202E"));
      if (!section) return undefined;
      const meta = section.querySelector(".meta");
      const range = document.createRange();
      range.setStart(meta.firstChild, 0);
      range.setEnd(meta.firstChild, 4);
      const code = meta.querySelector("code").getBoundingClientRect();
      const type = meta.querySelector(":scope > bdi").getBoundingClientRect();
      return {
        lineWord: range.getBoundingClientRect().left,
        code: [code.left, code.right],
        type: type.left,
        body: document.body.innerText,
        marks: [...section.querySelectorAll(".ctl")].map((m) => m.textContent),
      };
    })()`);
    expect(layout).toBeDefined();
    expect(layout!.lineWord).toBeLessThan(layout!.code[0]!);
    expect(layout!.code[1]!).toBeLessThanOrEqual(layout!.type);
    expect(layout!.marks).toEqual(expect.arrayContaining(["U+202E", "U+202C", "U+2066", "U+2069"]));
    expect(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/.test(layout!.body)).toBe(false);
  });
});
