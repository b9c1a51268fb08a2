/**
 * The pieces the shapes of the requests' params are made of, as the LSP specification gives them;
 * each request in `requests/` gives its own shape, checked before its handler runs. A request
 * whose params do not fit is the client's mistake: it is answered with InvalidParams (-32602), as
 * JSON-RPC asks, and logs nothing, instead of failing inside a feature, which would log a stack
 * trace and answer an empty result.
 *
 * Only what the handlers read is checked; optional members the server ignores are not.
 */

export type Check = (value: unknown) => boolean;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The specification's `uinteger`: an integer from 0 to 2^31 - 1. */
export const uinteger: Check = (v) => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 2147483647;
export const string: Check = (v) => typeof v === "string";
export const position: Check = (v) => isObject(v) && uinteger(v.line) && uinteger(v.character);
export const range: Check = (v) => isObject(v) && position(v.start) && position(v.end);
export const textDocument: Check = (v) => isObject(v) && string(v.uri);
export const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined || v === null || check(v);
export const object =
  (members: Record<string, Check>): Check =>
  (v) =>
    isObject(v) && Object.entries(members).every(([name, check]) => check(v[name]));

/** An array whose every item passes `check`. */
export const arrayOf =
  (check: Check): Check =>
  (v) =>
    Array.isArray(v) && v.every(check);

/** What each member is, for the error's message. */
const DESCRIPTIONS = new Map<Check, string>([
  [uinteger, "a non-negative integer"],
  [string, "a string"],
  [position, "a Position: an object with line and character, non-negative integers"],
  [range, "a Range: an object with start and end, each a Position"],
  [textDocument, "a TextDocumentIdentifier: an object with a string uri"],
]);

/** The members a request's params must have, by name (`Request.params`). */
export type Shape = Record<string, Check>;

export const atPosition: Shape = { textDocument, position };
export const onDocument: Shape = { textDocument };
export const hierarchyItem = object({ uri: string });

/**
 * Why `params` do not fit the request's shape, or undefined when they do (or when the request has
 * no shape, such as the server's own `piSession/buildContext`, which checks its params itself).
 */
export function invalidParams(request: { readonly method: string; readonly params?: Shape }, params: unknown): string | undefined {
  const { method, params: shape } = request;
  if (!shape) return undefined;
  if (!isObject(params)) return `${method}: the params must be an object, not ${params === null ? "null" : Array.isArray(params) ? "an array" : typeof params}`;
  for (const [name, check] of Object.entries(shape)) {
    if (!check(params[name])) return `${method}: params.${name} must be ${DESCRIPTIONS.get(check) ?? "as the specification says"}`;
  }
  return undefined;
}
