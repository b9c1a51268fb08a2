/**
 * `export` on the real Pi's corpus and on a hostile session: the HTML page is made only of the
 * exporter's own tags and attributes (`checkPage`), the Markdown shows session text only escaped
 * or fenced, the messages are the context's own Markdown, the entries Pi leaves out after a
 * compaction and the check's findings are marked, the output is bounded, and `--out` never
 * replaces a file without `--force`. The page in a real browser: test/clients/vscode/export.test.ts.
 */

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runExport } from "../../server/src/cli/export";
import { escapeControlsKeepingLines } from "../../server/src/cli/terminal";
import { buildContext, messagesOfLine } from "../../server/src/core/pi/buildContext";
import { SessionDocument } from "../../server/src/core/session/document";
import { renderMessageMarkdown } from "../../server/src/features/contextMarkdown";
import { collectDiagnostics, MAX_PER_CODE } from "../../server/src/features/api/diagnostics";
import { exportSession } from "../../server/src/features/export/exportSession";
import { exportPlan } from "../../server/src/features/export/plan";
import { checkPage } from "../helpers/exportHtml";
import { hostileExportSession } from "../helpers/hostileExport";

const fixtures = join(__dirname, "../parity/fixtures");
const fixture = (name: string) => join(fixtures, `${name}.jsonl`);
const work = mkdtempSync(join(tmpdir(), "pi-export-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function run(...args: string[]) {
  let out = "";
  let err = "";
  const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t), isTTY: false, env: { NO_COLOR: "1" }, cwd: work };
  const status = await runExport(args, io);
  return { status, out, err };
}

function docOf(path: string) {
  return new SessionDocument(`file://${path}`, "jsonl", 0, readFileSync(path, "utf8"));
}

/** Bidirectional and other controls that must never reach the output raw (line feed and tab may). */
const RAW_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** The Markdown outside its code fences and code spans. */
function outsideFences(markdown: string): string {
  const kept: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const m = /^(`{3,})/.exec(line);
    if (fence === undefined && m) fence = m[1];
    else if (fence !== undefined && line === fence) fence = undefined;
    else if (fence === undefined) kept.push(line);
  }
  return kept.join("\n").replace(/(`+)[^\n]*?\1/g, "");
}

const hostile = join(work, "hostile.jsonl");
writeFileSync(hostile, hostileExportSession());

describe("export on the corpus", () => {
  const names = readdirSync(fixtures).filter((n) => n.endsWith(".jsonl"));
  it("writes a well-formed page and escaped Markdown for every file Pi can open, and says why not for the others", async () => {
    expect(names.length).toBeGreaterThan(50);
    for (const name of names) {
      for (const all of [[], ["--all"]]) {
        const html = await run("--format", "html", ...all, join(fixtures, name));
        const md = await run(...all, join(fixtures, name));
        expect(md.status, `${name} ${all}`).toBe(html.status);
        if (html.status === 0) {
          expect(() => checkPage(html.out), name).not.toThrow();
          expect(md.out).toMatch(/^# Session/);
          expect(RAW_CONTROLS.test(md.out)).toBe(false);
        } else {
          expect(html.status, `${name}: ${html.err}`).toBe(1);
          expect(html.out).toBe("");
          expect(html.err).toMatch(/^pi-session-lsp export: .+: .+/);
        }
        if (name.startsWith("written-")) expect(html.status, name).toBe(0);
      }
    }
  });

  it("shows each message of a branch as the context's own Markdown shows it", async () => {
    for (const name of ["written-16-conversation", "written-16-branches", "written-074-conversation"]) {
      const a = docOf(fixture(name)).analysis;
      const built = buildContext(a);
      if (!built.ok) throw new Error(`${name} builds no context`);
      const md = await run(fixture(name));
      expect(md.status).toBe(0);
      const { messages } = built.build.context;
      expect(messages.length).toBeGreaterThanOrEqual(2);
      let at = 0;
      for (let i = 0; i < messages.length; i++) {
        const section = escapeControlsKeepingLines(
          renderMessageMarkdown(messages[i], i + 1, built.build.sources[i], { maxLines: Number.MAX_SAFE_INTEGER, maxChars: 1_000_000 }),
        );
        const found = md.out.indexOf(section, at);
        expect(found, `${name}: message ${i + 1}`).toBeGreaterThanOrEqual(at);
        at = found + section.length;
      }
    }
  });

  it("marks the entries a compaction leaves behind, and only those", async () => {
    for (const name of ["written-16-compaction", "written-074-compaction", "fault-compaction-keeps-tool-result"]) {
      const a = docOf(fixture(name)).analysis;
      const built = buildContext(a);
      if (!built.ok) throw new Error(`${name} builds no context`);
      const sent = new Set(built.build.sources);
      const gives = new Set(["message", "custom_message", "branch_summary", "compaction"]);
      const expected = built.build.path.filter((e) => gives.has(e.type ?? "") && !sent.has(e)).map((e) => `e${e.index}`);
      const html = await run("--format", "html", fixture(name));
      const off = [...html.out.matchAll(/<section class="entry off" id="(e\d+)"/g)].map((m) => m[1]);
      expect(expected.length, name).toBeGreaterThan(0);
      expect(off, name).toEqual(expected);
    }
  });

  it("marks the entries whose messages Pi 1.x's context edits replace or remove, and only those", async () => {
    const name = "written-16-context-edit";
    const built = buildContext(docOf(fixture(name)).analysis);
    if (!built.ok) throw new Error(`${name} builds no context`);
    const { selected, sources, context } = built.build;
    const expected: string[] = [];
    for (const entry of selected) {
      if (!["message", "custom_message", "branch_summary", "compaction"].includes(entry.type ?? "")) continue;
      const k = sources.indexOf(entry);
      if (k < 0) expected.push(`e${entry.index} removed`);
      else if (context.messages[k] !== messagesOfLine(entry, false)[0]) expected.push(`e${entry.index} replaced`);
    }
    expect(expected.length).toBeGreaterThan(1);
    const html = await run("--format", "html", fixture(name));
    const marked = [
      ...html.out.matchAll(/id="(e\d+)"[^>]*><div class="meta">[^\n]*?<bdi>(removed|replaced) (?:from|in) the context by the context edit on line \d+/g),
    ].map((m) => `${m[1]} ${m[2]}`);
    expect(marked).toEqual(expected);
    expect((await run("--format", "html", "--pi", "0.74", fixture(name))).out).not.toContain("by the context edit");
  });

  it("marks the check's findings on their entries", async () => {
    for (const name of ["fault-open-tool-call", "fault-dangling-parent", "fault-images-over-limit", "fault-tool-result-after-user"]) {
      const doc = docOf(fixture(name));
      const { diagnostics } = collectDiagnostics(doc, MAX_PER_CODE);
      const onEntries = diagnostics.filter((d) => doc.analysis.entryAtLine[d.range.start.line] !== undefined);
      expect(onEntries.length, name).toBeGreaterThan(0);
      const html = await run("--format", "html", "--all", fixture(name));
      for (const d of onEntries) {
        const entry = doc.analysis.entryAtLine[d.range.start.line]!;
        const section = new RegExp(`<section class="entry[^"]*" id="e${entry.index}"[^>]*>[\\s\\S]*?</section>`).exec(html.out)?.[0] ?? "";
        expect(section, `${name}: ${d.code}`).toContain(`<code>${d.code}</code>`);
      }
    }
  });
});

describe("export on a hostile session", () => {
  it("writes a page in which no session value is markup, with the branches, the images that are images, and bounded text", async () => {
    const r = await run("--format", "html", "--all", "--out", join(work, "all.html"), hostile);
    expect(r.err).toBe("");
    expect(r.status).toBe(0);
    const html = readFileSync(join(work, "all.html"), "utf8");
    const facts = checkPage(html);
    expect(facts.images).toBe(1);
    expect(facts.tags.filter((t) => t === "button")).toHaveLength(3);
    expect(RAW_CONTROLS.test(html)).toBe(false);
    expect(html).toContain('<span class="ctl">U+202E</span>');
    expect(html).toContain(
      '<span class="offnote"><bdi>label: &lt;script&gt;window.__pwned=&#39;label&#39;&lt;/script&gt;<span class="ctl">U+202E</span>label</bdi></span>',
    );
    for (const text of ["BRANCH-A-TEXT", "BRANCH-B-TEXT", "CYCLE-1", "HUGE-START", "JAVASCRIPT-LINK", "&lt;script&gt;window.__pwned="])
      expect(html).toContain(text);
    expect(html).toMatch(/9,485,771 more characters not shown/);
    expect(html).toContain("[image <bdi>image/svg+xml</bdi>: not shown, not a PNG, JPEG, GIF or WebP image]");
    expect(html.split("[image <bdi>image/png</bdi>: not shown, its data is not base64]")).toHaveLength(3);
    expect(html).toContain("Findings on other lines");
    expect(html.length).toBeLessThan(1_200_000);
  });

  it("exports the branch Pi resumes by default, another with --leaf", async () => {
    const resumed = await run("--format", "html", "--out", join(work, "resumed.html"), hostile);
    expect(resumed.status).toBe(0);
    const page = readFileSync(join(work, "resumed.html"), "utf8");
    checkPage(page);
    expect(page).toContain("BRANCH-B-TEXT");
    expect(page).not.toContain("BRANCH-A-TEXT");
    expect(page).not.toContain("CYCLE-1");
    const other = await run("--leaf", "bA", hostile);
    expect(other.status).toBe(0);
    expect(other.out).toContain("BRANCH-A-TEXT");
    expect(other.out).not.toContain("BRANCH-B-TEXT");
  });

  it("writes Markdown in which session text is fenced or escaped, and bidi controls are shown", async () => {
    const md = await run("--all", hostile);
    expect(md.status).toBe(0);
    expect(RAW_CONTROLS.test(md.out)).toBe(false);
    expect(md.out).toContain("\\u202e");
    const prose = outsideFences(md.out);
    expect(prose).not.toMatch(/(^|[^\\])</);
    expect(prose).not.toMatch(/(^|[^\\])\[[^\]]*\]\(/);
    expect(md.out).toContain("HUGE-START");
    expect(md.out.length).toBeLessThan(1_200_000);
  });

  it("refuses to write HTML this large to standard output, and writes it with --out", async () => {
    const large = join(work, "large.jsonl");
    writeFileSync(large, hostileExportSession(17 * 1024 * 1024));
    const refused = await run("--format", "html", large);
    expect(refused.status).toBe(2);
    expect(refused.out).toBe("");
    expect(refused.err).toContain("give --out PATH");
    const written = await run("--format", "html", "--out", join(work, "large.html"), large);
    expect(written.status).toBe(0);
    checkPage(readFileSync(join(work, "large.html"), "utf8"));
  });

  it("stops at its byte budget and still closes the page", () => {
    const doc = docOf(fixture("written-16-branches"));
    const plan = exportPlan(doc.analysis, { leaf: undefined, all: true, flavor: "1.x" });
    if (typeof plan === "string") throw new Error(plan);
    let html = "";
    const result = exportSession(doc, { format: "html", flavor: "1.x", plan, diagnostics: [], maxBytes: 6000, scriptHash: "sha256-x" }, (t) => {
      html += t;
    });
    expect(result.cut).toBeGreaterThan(0);
    expect(result.cut).toBeLessThan(plan.entries.length);
    expect(html).toContain(`… ${result.cut} more entries not shown`);
    expect(html.endsWith("</body></html>\n")).toBe(true);
  });
});

describe("export --out", () => {
  it("writes the file, refuses to replace it without --force, replaces it with --force, never the session itself", async () => {
    const dir = join(work, "out");
    mkdirSync(dir);
    const target = join(dir, "x.md");
    const stdout = await run(fixture("written-16-conversation"));
    expect(await run("--out", target, fixture("written-16-conversation"))).toMatchObject({ status: 0, out: "", err: "" });
    expect(readFileSync(target, "utf8")).toBe(stdout.out);
    writeFileSync(target, "mine");
    const refused = await run("--out", target, fixture("written-16-conversation"));
    expect(refused.status).toBe(2);
    expect(refused.err).toContain("it exists (give --force to replace it)");
    expect(readFileSync(target, "utf8")).toBe("mine");
    expect((await run("--out", target, "--force", fixture("written-16-conversation"))).status).toBe(0);
    expect(readFileSync(target, "utf8")).toBe(stdout.out);
    const copy = join(dir, "s.jsonl");
    writeFileSync(copy, readFileSync(fixture("written-16-conversation")));
    const self = await run("--out", copy, "--force", copy);
    expect(self.status).toBe(2);
    expect(self.err).toContain("it is the session being exported");
    expect(readdirSync(dir).sort()).toEqual(["s.jsonl", "x.md"]);
  });

  it("says why it writes nothing: usage, an unreadable file, a file Pi cannot open, a branch Pi cannot build, an unknown leaf", async () => {
    expect((await run("--leaf", "x", "--all", hostile)).status).toBe(2);
    expect((await run("--force", hostile)).status).toBe(2);
    const dir = await run(work);
    expect(dir).toMatchObject({ status: 2, out: "" });
    expect(dir.err).toContain("cannot read it");
    const utf16 = join(work, "utf16.jsonl");
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(readFileSync(fixture("written-16-conversation"), "utf8"), "utf16le")]));
    expect((await run(utf16)).status).toBe(1);
    expect((await run(fixture("fault-no-header"))).err).toContain("not a Pi session");
    const cycle = await run(fixture("fault-cycle-leaf-path"));
    expect(cycle.status).toBe(1);
    expect(cycle.err).toContain("parent cycle");
    expect((await run("--all", fixture("fault-cycle-leaf-path"))).status).toBe(0);
    const unknown = await run("--leaf", "no-such-entry", hostile);
    expect(unknown.status).toBe(2);
    expect(unknown.err).toContain("no entry has the id");
    expect(existsSync(join(work, "x"))).toBe(false);
  });
});
