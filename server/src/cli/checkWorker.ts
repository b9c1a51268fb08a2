/**
 * A worker thread of `check DIR` (`checkPool.ts`): checks the files it is sent, one at a time, and
 * answers with what the check printed and counted.
 */

import { serve } from "../node/poolWorker";
import { checkOne } from "./check";

serve(checkOne);
