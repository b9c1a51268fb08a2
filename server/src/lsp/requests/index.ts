/**
 * Every request the server answers, one file each. The order is the order of the capabilities in
 * the `initialize` result (after the document synchronisation), which clients and the capabilities
 * test see; a new request is a new file and a line here.
 */

import { buildContext } from "./buildContext";
import { codeAction } from "./codeAction";
import { codeActionResolve } from "./codeActionResolve";
import { codeLens } from "./codeLens";
import { codeLensResolve } from "./codeLensResolve";
import { completion } from "./completion";
import { definition } from "./definition";
import { diagnostic } from "./diagnostic";
import { documentHighlight } from "./documentHighlight";
import { documentLink } from "./documentLink";
import { documentSymbol } from "./documentSymbol";
import { executeCommand } from "./executeCommand";
import { foldingRange } from "./foldingRange";
import { formatting } from "./formatting";
import { hover } from "./hover";
import { incomingCalls } from "./incomingCalls";
import { inlayHint } from "./inlayHint";
import { outgoingCalls } from "./outgoingCalls";
import { prepareCallHierarchy } from "./prepareCallHierarchy";
import { prepareRename } from "./prepareRename";
import { prepareTypeHierarchy } from "./prepareTypeHierarchy";
import { references } from "./references";
import { rename } from "./rename";
import type { AnyRequest } from "./request";
import { subtypes } from "./subtypes";
import { supertypes } from "./supertypes";
import { workspaceDiagnostic } from "./workspaceDiagnostic";
import { workspaceSymbol } from "./workspaceSymbol";

export const REQUESTS: readonly AnyRequest[] = [
  diagnostic,
  workspaceDiagnostic,
  definition,
  references,
  documentHighlight,
  documentLink,
  hover,
  prepareCallHierarchy,
  incomingCalls,
  outgoingCalls,
  prepareTypeHierarchy,
  supertypes,
  subtypes,
  workspaceSymbol,
  documentSymbol,
  foldingRange,
  inlayHint,
  completion,
  prepareRename,
  rename,
  formatting,
  codeAction,
  codeActionResolve,
  codeLens,
  codeLensResolve,
  executeCommand,
  buildContext,
];
