/**
 * The shapes of the params of the requests the server answers, as the LSP specification gives
 * them, checked before a handler runs. A request whose params do not fit is the client's mistake:
 * it is answered with InvalidParams (-32602), as JSON-RPC asks, and logs nothing, instead of
 * failing inside a feature, which would log a stack trace and answer an empty result.
 *
 * Only what the handlers read is checked; optional members the server ignores are not.
 */

type Check = (value: unknown) => boolean;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The specification's `uinteger`: an integer from 0 to 2^31 - 1. */
const uinteger: Check = (v) => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 2147483647;
const string: Check = (v) => typeof v === "string";
const position: Check = (v) => isObject(v) && uinteger(v.line) && uinteger(v.character);
const range: Check = (v) => isObject(v) && position(v.start) && position(v.end);
const textDocument: Check = (v) => isObject(v) && string(v.uri);
const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined || v === null || check(v);
const object =
  (members: Record<string, Check>): Check =>
  (v) =>
    isObject(v) && Object.entries(members).every(([name, check]) => check(v[name]));

/** What each member is, for the error's message. */
const DESCRIPTIONS = new Map<Check, string>([
  [uinteger, "a non-negative integer"],
  [string, "a string"],
  [position, "a Position: an object with line and character, non-negative integers"],
  [range, "a Range: an object with start and end, each a Position"],
  [textDocument, "a TextDocumentIdentifier: an object with a string uri"],
]);

const atPosition = { textDocument, position };
const hierarchyItem = object({ uri: string });

/** The members each request's params must have, by method. */
const SHAPES: Record<string, Record<string, Check>> = {
  "textDocument/diagnostic": { textDocument, previousResultId: optional(string) },
  "textDocument/definition": atPosition,
  "textDocument/references": { ...atPosition, context: object({ includeDeclaration: (v) => typeof v === "boolean" }) },
  "textDocument/documentHighlight": atPosition,
  "textDocument/documentLink": { textDocument },
  "textDocument/documentSymbol": { textDocument },
  "textDocument/foldingRange": { textDocument },
  "textDocument/inlayHint": { textDocument, range },
  "textDocument/prepareRename": atPosition,
  "textDocument/rename": { ...atPosition, newName: string },
  "textDocument/codeAction": { textDocument, range, context: object({ diagnostics: Array.isArray }) },
  "codeAction/resolve": { title: string },
  "textDocument/formatting": { textDocument },
  "textDocument/completion": atPosition,
  "textDocument/hover": atPosition,
  "textDocument/prepareCallHierarchy": atPosition,
  "callHierarchy/incomingCalls": { item: hierarchyItem },
  "callHierarchy/outgoingCalls": { item: hierarchyItem },
  "textDocument/prepareTypeHierarchy": atPosition,
  "typeHierarchy/supertypes": { item: hierarchyItem },
  "typeHierarchy/subtypes": { item: hierarchyItem },
  "workspace/symbol": { query: string },
  "textDocument/codeLens": { textDocument },
  "codeLens/resolve": { range },
  "workspace/executeCommand": { command: string, arguments: optional(Array.isArray) },
};

/**
 * Why `params` do not fit the request `method`, or undefined when they do (or when the method has
 * no shape here, such as the server's own `piSession/buildContext`, which checks its params itself).
 */
export function invalidParams(method: string, params: unknown): string | undefined {
  const shape = SHAPES[method];
  if (!shape) return undefined;
  if (!isObject(params)) return `${method}: the params must be an object, not ${params === null ? "null" : Array.isArray(params) ? "an array" : typeof params}`;
  for (const [name, check] of Object.entries(shape)) {
    if (!check(params[name])) return `${method}: params.${name} must be ${DESCRIPTIONS.get(check) ?? "as the specification says"}`;
  }
  return undefined;
}
