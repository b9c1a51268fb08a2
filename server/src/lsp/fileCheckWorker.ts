/**
 * A worker thread of the workspace's diagnostics (`workspaceDiagnostics.ts`): checks the files it
 * is sent, one at a time, as `check FILE` would (`fileCheck.ts`), and answers with their diagnostics.
 */

import { serve } from "../io/poolWorker";
import { checkFile } from "./fileCheck";

serve(checkFile);
