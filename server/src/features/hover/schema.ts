/** Hovers on an entry `type` or a message `role`: the schema table's row, and what the value means to Pi. */

import type { SessionAnalysis } from "../../core/session/analysis";
import type { Entry } from "../../core/session/entry";
import { ENTRY_TYPE_BY_NAME, ENTRY_TYPES, type FieldSpec, ROLE_BY_NAME, ROLES, SESSION_HEADER_TYPE } from "../../core/line/schema";
import { inlineCode as code } from "../markdown";
import { objectAt } from "./common";
import { headerProblem } from "./header";

export function typeHover(a: SessionAnalysis, type: string, entry: Entry | undefined, line: number): string {
  const spec = type === "session" ? SESSION_HEADER_TYPE : ENTRY_TYPE_BY_NAME.get(type);
  if (!spec) {
    return [
      `**${code(type)}**: not an entry type Pi knows`,
      "Pi keeps the entry in the tree (it can be the leaf and sit on the active path), but it adds nothing to the model's context.",
      `Known types: ${ENTRY_TYPES.map((t) => code(t.type)).join(", ")}.`,
    ].join("\n\n");
  }
  const out = [`**${code(spec.type)}** ${type === "session" ? "header" : "entry"}`, spec.summary];
  const facts = [
    `- **In the model's context:** ${spec.context}`,
    `- **Since:** ${since(spec.since)}`,
    `- **Fields:** ${fieldList(spec.fields)}${type === "session" ? "" : "; and on every entry `id`, `parentId` (string or null), `timestamp`"}`,
  ];
  if (type === "message") facts.push(`- **Roles:** ${ROLES.map((r) => code(r.role)).join(", ")}`);
  out.push(facts.join("\n"));
  if (type === "session") {
    const note =
      line !== a.headerLine
        ? `Pi ignores this line: ${a.headerLine === undefined ? "the file has no header" : `the header is line ${a.headerLine + 1}`}.`
        : headerProblem(a);
    if (note) out.push(note);
  } else if (entry && entry.line === a.headerLine) {
    out.push(headerProblem(a) ?? "");
  }
  return out.join("\n\n").trimEnd();
}

function since(text: string): string {
  return /^v\d/.test(text) ? `session format ${text}` : text;
}

function fieldList(fields: readonly FieldSpec[]): string {
  return fields.map((f) => `${code(f.required ? f.name : `${f.name}?`)} ${f.kinds.join(" or ")}`).join(", ");
}

export function roleHover(entry: Entry, role: string): string {
  const spec = ROLE_BY_NAME.get(role);
  const message = objectAt(entry.parsed.object, "message");
  if (!spec) {
    return [
      `**${code(role)}**: not a message role Pi knows`,
      "Pi keeps the message in the context, but converting it to model input drops it (an extension may define this role).",
      `Known roles: ${ROLES.map((r) => code(r.role)).join(", ")}.`,
    ].join("\n\n");
  }
  const out = [`**${code(spec.role)}** message`, spec.summary, `- **To the model:** ${spec.toModel}\n- **Fields:** ${fieldList(spec.fields)}`];
  if (role === "bashExecution" && message?.excludeFromContext) out.push("This message has `excludeFromContext`: Pi leaves it out of the model input.");
  return out.join("\n\n");
}
