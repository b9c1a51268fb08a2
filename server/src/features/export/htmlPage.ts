/**
 * The exported HTML page around the messages: its head (a strict Content-Security-Policy, the
 * style), the list of branches, one `<section>` per entry, and the one script, which shows the
 * branch a reader chooses. The page is one self-contained file: it loads nothing (`default-src
 * 'none'`), images are `data:` URLs, the style is inline, and the only script that may run is
 * `PAGE_SCRIPT`, allowed by its hash. The script reads nothing from the session: it walks the
 * numbers this module writes into `data-p` (each entry's parent's index) and `data-leaf`.
 *
 * Pure: it returns strings; `exportSession.ts` writes them as it goes.
 */

import type { Diagnostic } from "vscode-languageserver";
import type { Entry } from "../../core/session/entry";
import { plural, singleLine } from "../../core/base/text";
import { entryTitle } from "../entryTitle";
import type { ExportBranch, ExportPlan } from "./plan";
import { htmlPlain, htmlText, inline } from "./htmlText";

/** Code points of a session name or id in the title. */
const NAME_CODE_POINTS = 80;
/** Code points of a note on an entry (a label, a context edit). */
export const NOTE_CODE_POINTS = 120;
/** Findings listed per entry; more are counted. */
export const MAX_FINDINGS_PER_ENTRY = 20;

/**
 * Shows the entries of one branch: walks `data-p` up from the chosen leaf (at most as many steps
 * as there are entries, so that a cycle cannot hang the page) and hides every other section.
 */
export const PAGE_SCRIPT = `(function () {
  var sections = document.querySelectorAll("section.entry");
  var buttons = document.querySelectorAll("button[data-leaf]");
  function show(leaf) {
    var keep = {};
    var n = leaf;
    for (var steps = 0; steps <= sections.length && n >= 0 && !keep[n]; steps++) {
      var s = document.getElementById("e" + n);
      if (!s) break;
      keep[n] = true;
      n = Number(s.getAttribute("data-p"));
    }
    var shown = 0;
    for (var i = 0; i < sections.length; i++) {
      var on = keep[Number(sections[i].id.slice(1))] === true;
      sections[i].hidden = !on;
      if (on) shown++;
    }
    for (var j = 0; j < buttons.length; j++) buttons[j].setAttribute("aria-pressed", String(Number(buttons[j].getAttribute("data-leaf")) === leaf));
    document.getElementById("shown").textContent = shown + " entries of this branch shown";
  }
  document.getElementById("branches").addEventListener("click", function (event) {
    var button = event.target.closest("button[data-leaf]");
    if (button) show(Number(button.getAttribute("data-leaf")));
  });
  var first = document.querySelector("button[data-resumed]") || buttons[0];
  if (first && document.body.getAttribute("data-all") === "true") show(Number(first.getAttribute("data-leaf")));
})();`;

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;display:flex;color:#1d1d1f;background:#fafafa}
nav{width:22rem;max-height:100vh;overflow:auto;position:sticky;top:0;padding:1rem;border-right:1px solid #ddd;background:#f0f0f3;box-sizing:border-box}
nav ol{padding-left:1.2rem}nav button{overflow-wrap:anywhere;text-align:start;font:inherit;background:none;border:1px solid transparent;cursor:pointer;padding:.2rem .3rem;width:100%}
nav button[aria-pressed=true]{border-color:#36c;background:#e3ebff}
main{flex:1;min-width:0;padding:1rem 2rem}
section.entry{border-bottom:1px solid #e3e3e3;padding:.4rem 0;content-visibility:auto;contain-intrinsic-size:auto 5rem}section.off{opacity:.6}
.meta{color:#666;font-size:12px}.meta code{font-size:12px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid #e3e3e3;padding:.5rem;margin:.3rem 0;max-height:40rem;overflow:auto}
.msg h3{font-size:14px;margin:.2rem 0}.user h3{color:#0a5}.assistant h3{color:#36c}.summary h3{color:#a60}
details{margin:.3rem 0}summary{cursor:pointer;color:#555}
.ctl{font:11px monospace;color:#fff;background:#c33;border-radius:3px;padding:0 2px;margin:0 1px;unicode-bidi:isolate}
.findings{margin:.2rem 0;padding-left:1.2rem}.sev1{color:#b00}.sev2{color:#a60}.sev3,.sev4{color:#36c}
.cut,.offnote{color:#a60;font-style:italic}img{max-width:100%;max-height:40rem;border:1px solid #ddd}
`;

export interface PageInfo {
  sessionName: string | undefined;
  sessionId: string | undefined;
  /** `'sha256-…'` of `PAGE_SCRIPT`, which the policy allows. */
  scriptHash: string;
}

const SEVERITY = ["", "error", "warning", "info", "hint"];

export function pageHead(info: PageInfo, plan: ExportPlan): string {
  const name = info.sessionName ? singleLine(info.sessionName, NAME_CODE_POINTS) : undefined;
  const id = info.sessionId ? singleLine(info.sessionId, NAME_CODE_POINTS) : undefined;
  const title = name ? `Session “${name}”` : id ? `Session ${id}` : "Session";
  const policy = `default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src '${info.scriptHash}'; base-uri 'none'; form-action 'none'`;
  return [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${htmlPlain(title)}</title>`,
    `<style>${STYLE}</style>`,
    `</head><body data-all="${plan.all}">`,
    navigation(plan),
    "<main>",
    `<h1>${name ? `Session “${inline(name)}”` : id ? `Session ${inline(id)}` : "Session"}</h1>`,
    id && name ? `<p class="meta">session <code>${inline(id)}</code></p>` : "",
    `<p class="meta" id="shown">${plan.all ? "the whole tree, in file order" : `${plural(plan.entries.length, "entry", "entries")} of one branch, root first`}</p>`,
    "",
  ].join("\n");
}

function navigation(plan: ExportPlan): string {
  const items = plan.branches.map((b) => branchItem(b));
  const more = plan.branchesCut > 0 ? `<p class="cut">… ${plural(plan.branchesCut, "more branch", "more branches")} not listed</p>` : "";
  const empty = plan.branches.length === 0 ? "<p><i>No entries.</i></p>" : "";
  return `<nav id="branches"><h2>${plan.all ? "Branches" : "Branch"}</h2>${empty}<ol>${items.join("")}</ol>${more}</nav>`;
}

function branchItem(b: ExportBranch): string {
  const length = b.length < 0 ? "runs into a parent cycle" : `${plural(b.length, "entry", "entries")}`;
  const resumed = b.resumed ? " data-resumed" : "";
  const note = b.resumed ? " · Pi resumes here" : "";
  return `<li><button type="button" data-leaf="${b.leaf.index}"${resumed}>${inline(entryTitle(b.leaf))}<br><small>line ${b.leaf.line + 1} · ${length}${note}</small></button></li>`;
}

/** A diagnostic's message as text (the protocol also allows Markdown content). */
export function messageText(d: Diagnostic): string {
  return typeof d.message === "string" ? d.message : d.message.value;
}

/** Findings of the file that are on no entry's line (the header, lines Pi skips). */
export function fileFindings(findings: readonly { line: number; d: Diagnostic }[]): string {
  if (findings.length === 0) return "";
  return `<section class="file-findings"><h2>Findings on other lines</h2>${findingList(
    findings.map((f) => f.d),
    (_d, i) => `line ${findings[i]!.line + 1}: `,
  )}</section>\n`;
}

function findingList(list: readonly Diagnostic[], prefix: (d: Diagnostic, i: number) => string = () => ""): string {
  const items = list.slice(0, MAX_FINDINGS_PER_ENTRY).map((d, i) => {
    const severity = d.severity ?? 1;
    const code = typeof d.code === "string" ? ` <code>${htmlText(d.code)}</code>` : "";
    return `<li class="sev${severity}"><b>${SEVERITY[severity] ?? "error"}</b>${code}: ${htmlText(prefix(d, i))}<bdi>${htmlText(messageText(d))}</bdi></li>`;
  });
  const more = list.length - MAX_FINDINGS_PER_ENTRY;
  if (more > 0) items.push(`<li class="cut">… ${plural(more, "more finding")}</li>`);
  return `<ul class="findings">${items.join("")}</ul>`;
}

/** One entry's section: where it is, its findings, and its messages (or its one-line title). */
export function entrySection(
  entry: Entry,
  parent: Entry | undefined,
  body: { messages: string[]; notSent: boolean; notes: readonly string[]; findings: readonly Diagnostic[] },
): string {
  const id = entry.id !== undefined ? ` · <code>${inline(singleLine(entry.id, NAME_CODE_POINTS) || '""')}</code>` : "";
  const type = entry.type !== undefined ? ` · ${inline(singleLine(entry.type, NAME_CODE_POINTS))}` : "";
  const off = body.notSent ? ' · <span class="offnote">not sent to the model: left behind by the last compaction</span>' : "";
  const notes = body.notes.map((n) => ` · <span class="offnote">${inline(singleLine(n, NOTE_CODE_POINTS))}</span>`).join("");
  const meta = `<div class="meta">line ${entry.line + 1}${id}${type}${off}${notes}</div>`;
  const findings = body.findings.length > 0 ? findingList(body.findings) : "";
  const content = body.messages.length > 0 ? body.messages.join("") : `<p class="note">${inline(entryTitle(entry))}</p>`;
  const cls = body.notSent ? "entry off" : "entry";
  return `<section class="${cls}" id="e${entry.index}" data-p="${parent ? parent.index : -1}">${meta}${findings}${content}</section>\n`;
}

/** The end of the page: what was left out, the script, the closing tags. */
export function pageTail(note: string | undefined): string {
  return `${note ? `<p class="cut">${htmlText(note)}</p>` : ""}</main>\n<script>${PAGE_SCRIPT}</script>\n</body></html>\n`;
}
