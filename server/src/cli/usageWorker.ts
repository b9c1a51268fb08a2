/**
 * A worker thread of `usage` (`usage.ts`): reads the session files it is sent, one at a time, and
 * answers with each one's sums.
 */

import { serve } from "../io/poolWorker";
import { scanUsage } from "../io/usageScan";

serve(scanUsage);
