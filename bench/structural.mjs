// bench/structural.mjs: the structural edits of issue 32, as an editor sends them (one content
// change each), for bench/stdio.mjs to time pulled and pushed. Each kind comes as a pair whose
// second edit undoes the first, so the document is as it was after every round, and every edit
// changes a diagnostic, so that a pushing server publishes after each:
//   - break: a line's closing "}" deleted (the line becomes malformed), then put back (mend);
//   - insert: a copy of a line inserted above it, with a new id and a parent that does not exist
//     (a dangling parent), then deleted;
//   - parent: the dangling parentId written by prepareSession (bench/stdio.mjs) changed to the id
//     of the entry above it (the fault goes), then back.
// The lines broken and copied lie between 10% and 25% of the file, where no typing of the
// benchmark goes (it types from 30% on, and at the end), so that their positions stay valid.

/** The generated sessions write type, id and parentId first; this finds them on a raw line. */
const HEAD = /^(\{"type":"[a-z_]+","id":")([^"]+)(","parentId":)("[^"]*"|null)/;

/** The first short message line at or after `from` that ends with "}" and has the head above, different from `not`. */
function shortMessageLine(lines, from, not) {
  for (let i = from; i < lines.length; i++) {
    const line = lines[i];
    if (i !== not && line.length < 20_000 && line.startsWith('{"type":"message"') && line.endsWith("}") && HEAD.test(line)) return i;
  }
  throw new Error("bench: no short message line for the structural edits");
}

/** The `rounds` × 6 structural edits on the prepared session `s`: {kind, change} in the order to send them. */
export function structuralEdits(s, rounds) {
  const { lines, faultLine } = s;
  const broken = shortMessageLine(lines, Math.floor(lines.length * 0.1));
  const copied = shortMessageLine(lines, Math.floor(lines.length * 0.2), broken);
  const end = lines[broken].length - 1;
  const at = (line, character) => ({ line, character });
  const dangling = '"dangling0"';
  const from = lines[faultLine].indexOf(`"parentId":${dangling}`) + '"parentId":'.length;
  let above = faultLine - 1;
  while (above >= 0 && !HEAD.test(lines[above])) above--;
  if (from < '"parentId":'.length || above < 0) throw new Error("bench: the session has no dangling parent to change");
  const existing = `"${HEAD.exec(lines[above])[2]}"`;
  const edits = [];
  for (let k = 0; k < rounds; k++) {
    const copy = lines[copied].replace(HEAD, (_, open, _id, mid) => `${open}benchcopy${k}${mid}"benchnowhere${k}"`);
    edits.push(
      { kind: "break", change: { range: { start: at(broken, end), end: at(broken, end + 1) }, text: "" } },
      { kind: "break", change: { range: { start: at(broken, end), end: at(broken, end) }, text: "}" } },
      { kind: "insert", change: { range: { start: at(copied, 0), end: at(copied, 0) }, text: `${copy}\n` } },
      { kind: "insert", change: { range: { start: at(copied, 0), end: at(copied + 1, 0) }, text: "" } },
      { kind: "parent", change: { range: { start: at(faultLine, from), end: at(faultLine, from + dangling.length) }, text: existing } },
      { kind: "parent", change: { range: { start: at(faultLine, from), end: at(faultLine, from + existing.length) }, text: dangling } },
    );
  }
  return edits;
}
