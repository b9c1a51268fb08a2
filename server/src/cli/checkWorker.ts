/**
 * A worker thread of `check DIR` (`checkPool.ts`): checks the files it is sent, one at a time, and
 * answers with what the check printed and counted.
 */

import { serve } from "../io/poolWorker";
import { checkOne } from "./check";

serve(checkOne);
