/**
 * A worker thread of the scan pool (`scanPool.ts`): scans the files it is sent, one at a time, and
 * reports the bytes it has read so the pool can show progress.
 */

import { serve } from "./poolWorker";
import { scanFile } from "./scanFile";

serve(scanFile);
