/**
 * Test only: drives the Pi Session extension through the VS Code API, as a user's clicks would
 * reach it, and writes what VS Code saw to a JSON file for test/clients/vscode/workbench.test.ts.
 *
 * It reads its plan from the file named by PI_PROBE_PLAN (the sessions and positions to ask
 * about; or, with `mode: "failure"`, a session to open and how long to wait while the extension
 * deals with a server that cannot start) and writes the report to PI_PROBE_REPORT: first to a temporary name, then renamed, so the
 * test never reads half a report. Every step has a time limit; a step that fails is recorded with
 * its error and the probe goes on, so that one report says everything that went wrong.
 */

const fs = require("node:fs");
const vscode = require("vscode");

const STEP_TIMEOUT_MS = 30_000;

function activate() {
  const planPath = process.env.PI_PROBE_PLAN;
  const reportPath = process.env.PI_PROBE_REPORT;
  if (!planPath || !reportPath) return;
  // After the workbench has settled, not inside activation: the extension host must not wait for the probe.
  setTimeout(() => void run(JSON.parse(fs.readFileSync(planPath, "utf8")), reportPath), 500);
}

async function run(plan, reportPath) {
  const report = { steps: {}, errors: [], timings: {} };
  const started = Date.now();
  const step = async (name, work) => {
    const begun = Date.now();
    try {
      report.steps[name] = await withTimeout(work(), `${name} took over ${STEP_TIMEOUT_MS} ms`);
    } catch (error) {
      report.errors.push(`${name}: ${error?.stack ?? String(error)}`);
    }
    report.timings[name] = Date.now() - begun;
  };

  const broken = vscode.Uri.file(plan.broken);

  if (plan.mode === "failure") {
    // A server that cannot start: open a session, then give a restart loop time to show itself.
    await step("extension", async () => {
      await show(broken);
      await sleep(plan.waitMs);
      return { active: vscode.extensions.getExtension("pi-session-lsp.pi-session-vscode")?.isActive === true };
    });
    await step("diagnostics", async () => vscode.languages.getDiagnostics(broken).length);
    return write(report, reportPath, started);
  }

  const valid = vscode.Uri.file(plan.valid);

  await step("extension", async () => {
    const extension = vscode.extensions.getExtension("pi-session-lsp.pi-session-vscode");
    if (!extension) throw new Error("the Pi Session extension is not installed");
    await extension.activate();
    return { id: extension.id, version: extension.packageJSON.version, active: extension.isActive };
  });

  if (plan.unopened) {
    // A session never opened in the editor: its problems reach the Problems list through the
    // server's workspace diagnostics (`workspace/diagnostic`), which the language client pulls.
    const unopened = vscode.Uri.file(plan.unopened);
    await step("unopenedDiagnostics", async () => {
      const list = (await settledDiagnostics(unopened, (l) => l.length > 0)).map(simplify);
      return { diagnostics: list, neverOpened: !vscode.workspace.textDocuments.some((d) => d.uri.toString() === unopened.toString()) };
    });
  }

  await step("brokenDiagnostics", async () => {
    await show(broken);
    return (await settledDiagnostics(broken, (list) => list.length > 0)).map(simplify);
  });

  await step("hover", async () => {
    const hovers = await vscode.commands.executeCommand("vscode.executeHoverProvider", broken, position(plan.hover));
    return (hovers || []).map((h) => h.contents.map((c) => (typeof c === "string" ? c : c.value)).join("\n"));
  });

  await step("definition", async () => {
    const locations = await vscode.commands.executeCommand("vscode.executeDefinitionProvider", broken, position(plan.hover));
    return (locations || []).map((l) => {
      const uri = l.targetUri || l.uri;
      const range = l.targetSelectionRange || l.targetRange || l.range;
      return { path: uri.fsPath, line: range.start.line, character: range.start.character };
    });
  });

  await step("codeLenses", async () => {
    // The second argument asks VS Code to resolve that many lenses, as the editor does for those in view.
    const lenses = await vscode.commands.executeCommand("vscode.executeCodeLensProvider", broken, 100);
    return (lenses || []).map((l) => ({ line: l.range.start.line, title: l.command ? l.command.title : null, command: l.command ? l.command.command : null }));
  });

  await step("contextDocument", async () => {
    await show(broken);
    await vscode.commands.executeCommand("piSession.showActiveContext");
    const document = await waitFor(() => vscode.workspace.textDocuments.find((d) => d.uri.scheme === "pi-context"));
    return {
      uri: document.uri.toString(),
      languageId: document.languageId,
      firstLine: document.lineAt(0).text,
      lines: document.lineCount,
      readOnlyScheme: document.uri.scheme,
    };
  });

  await step("fixAll", async () => {
    await show(broken);
    const before = fs.readFileSync(broken.fsPath, "utf8");
    let changes = 0;
    const listener = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.toString() === broken.toString()) changes++;
    });
    const applied = await vscode.commands.executeCommand("piSession.fixAll");
    listener.dispose();
    const document = await vscode.workspace.openTextDocument(broken);
    const result = { applied, text: document.getText(), dirty: document.isDirty, diskUnchanged: fs.readFileSync(broken.fsPath, "utf8") === before };
    if (applied !== true) {
      // What the server offered instead, for the test's message.
      const range = new vscode.Range(0, 0, document.lineCount, 0);
      const actions = (await vscode.commands.executeCommand("vscode.executeCodeActionProvider", broken, range, "source", 1)) || [];
      result.offered = actions.map((a) => `${a.kind ? a.kind.value : "command"}: ${a.title}`);
      result.diagnostics = vscode.languages.getDiagnostics(broken).length;
      result.changes = changes;
    }
    return result;
  });

  await step("validDiagnostics", async () => {
    const editor = await show(valid);
    // First show that diagnostics reach this document at all: a cut-off line added at the end
    // gets one; reverting the buffer must then take it away again. What is left after that is
    // what the valid session has, not a list that had not arrived yet.
    const end = editor.document.lineAt(editor.document.lineCount - 1).range.end;
    await editor.edit((b) => b.insert(end, '\n{"type":"message"'));
    const broken = await waitFor(() => {
      const list = vscode.languages.getDiagnostics(valid);
      return list.length > 0 && JSON.stringify(list.map(simplify));
    });
    await vscode.commands.executeCommand("workbench.action.files.revert");
    await waitFor(() => JSON.stringify(vscode.languages.getDiagnostics(valid).map(simplify)) !== broken);
    return (await settledDiagnostics(valid, () => true)).map(simplify);
  });

  await step("completion", async () => {
    const editor = await show(valid);
    // A new, empty line at the end of the buffer, as a user starts a new entry.
    const last = () => editor.document.lineAt(editor.document.lineCount - 1);
    if (last().text !== "") await editor.edit((b) => b.insert(last().range.end, "\n"));
    const at = last().range.end;
    const list = await vscode.commands.executeCommand("vscode.executeCompletionItemProvider", valid, at);
    const labels = (list ? list.items : []).map((i) => (typeof i.label === "string" ? i.label : i.label.label));
    await vscode.commands.executeCommand("workbench.action.files.revert");
    return { line: at.line, labels };
  });

  // "Export as Markdown" and "Export the Whole Tree as Markdown" from the palette, on the valid
  // session (clean again after the steps before): each opens a read-only Markdown document.
  for (const [name, command, title] of [
    ["exportBranch", "piSession.exportAsMarkdown", "export of the resumed branch"],
    ["exportTree", "piSession.exportTreeAsMarkdown", "export of the whole tree"],
  ]) {
    await step(name, async () => {
      await show(valid);
      await vscode.commands.executeCommand(command);
      const document = await waitFor(() => vscode.workspace.textDocuments.find((d) => d.uri.scheme === "pi-export" && d.uri.path.includes(`(${title})`)));
      return { path: document.uri.path, languageId: document.languageId, text: document.getText() };
    });
  }

  await step("resumeFromHere", async () => {
    const editor = await show(valid);
    const before = editor.document.lineCount;
    editor.selection = new vscode.Selection(position(plan.entry), position(plan.entry));
    const applied = await vscode.commands.executeCommand("piSession.resumeFromHere");
    const after = editor.document.getText();
    const lastLine = editor.document.lineAt(editor.document.lineCount - 1).text || editor.document.lineAt(editor.document.lineCount - 2).text;
    await vscode.commands.executeCommand("workbench.action.files.revert");
    return { applied, linesBefore: before, linesAfter: after.split("\n").length, lastLine };
  });

  // Leave the broken session on screen with the Problems panel open, for the screenshot.
  await step("screen", async () => {
    await show(broken);
    await vscode.commands.executeCommand("workbench.actions.view.problems");
    return true;
  });

  write(report, reportPath, started);
}

function write(report, reportPath, started) {
  report.totalMs = Date.now() - started;
  fs.writeFileSync(`${reportPath}.part`, JSON.stringify(report, null, 2));
  fs.renameSync(`${reportPath}.part`, reportPath);
}

function position(p) {
  return new vscode.Position(p.line, p.character);
}

async function show(uri) {
  const document = await vscode.workspace.openTextDocument(uri);
  return vscode.window.showTextDocument(document, { preview: false });
}

function simplify(d) {
  return {
    line: d.range.start.line,
    character: d.range.start.character,
    severity: d.severity,
    code: typeof d.code === "object" && d.code !== null ? String(d.code.value) : d.code === undefined ? null : String(d.code),
    source: d.source,
  };
}

/** The diagnostics of `uri` once `ready(list)` holds and nothing has changed for a second. */
async function settledDiagnostics(uri, ready) {
  let last = "";
  let stableSince = Date.now();
  for (;;) {
    const list = vscode.languages.getDiagnostics(uri);
    const now = JSON.stringify(list.map(simplify));
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    } else if (ready(list) && Date.now() - stableSince >= 1000) return list;
    await sleep(100);
  }
}

/** The first truthy value of `test`, asked every 100 ms; the step's own time limit bounds it. */
async function waitFor(test) {
  for (;;) {
    const value = await test();
    if (value) return value;
    await sleep(100);
  }
}

function withTimeout(promise, message) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(message)), STEP_TIMEOUT_MS)))]).finally(() =>
    clearTimeout(timer),
  );
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

module.exports = { activate, deactivate() {} };
