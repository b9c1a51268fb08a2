/**
 * The facade's doctor: the report on one session (`/doctor` inside Pi, `pi-session-lsp doctor`)
 * and its text. The Pi extension loads this part alone, and only when a handler runs.
 */

export { type DoctorFinding, type DoctorGroup, type DoctorReport, type DoctorVerdict, doctorReport } from "../doctor";
export type { DoctorRemedy, RepairedCopy, ResumeNewest } from "../doctorRemedies";
export { doctorText } from "../doctorText";
