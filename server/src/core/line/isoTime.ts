/**
 * Reading Pi's timestamps: whether a string is an ISO 8601 date-time, and its time in milliseconds.
 * Kept apart from the field tables (`schema.ts`), which only say that a field is a timestamp: this
 * is the one piece of parsing every line pays for, with a fast path for the exact form Pi writes.
 */

/**
 * Whether a string is an ISO 8601 date-time that `new Date()` reads, as Pi's
 * `new Date().toISOString()` writes (`2026-03-02T10:00:00.002Z`); offsets other than `Z` are
 * accepted because `Date` reads them the same way.
 */
export function isIsoTimestamp(value: string): boolean {
  return isoTime(value) !== undefined;
}

/**
 * The time of an ISO 8601 timestamp in milliseconds, or undefined when it is not one. The last
 * answer is remembered: a line's timestamp is checked by both the parse and the field check.
 */
export function isoTime(value: string): number | undefined {
  if (value === lastIsoInput) return lastIsoTime;
  lastIsoInput = value;
  const time = value.length === 24 ? piTime(value) : ISO_RE.test(value) ? Date.parse(value) : NaN;
  lastIsoTime = Number.isNaN(time) ? undefined : time;
  return lastIsoTime;
}

/**
 * Reads the exact form Pi writes, `YYYY-MM-DDTHH:mm:ss.sssZ`, without a regular expression,
 * `Date.parse` or `Date.UTC`, which matters on 50,000 lines (every line's timestamp is read once
 * by the parse). Anything else falls back to the general check.
 */
function piTime(value: string): number {
  if (
    value.charCodeAt(4) !== 45 ||
    value.charCodeAt(7) !== 45 ||
    value.charCodeAt(10) !== 84 ||
    value.charCodeAt(13) !== 58 ||
    value.charCodeAt(16) !== 58 ||
    value.charCodeAt(19) !== 46 ||
    value.charCodeAt(23) !== 90
  ) {
    return ISO_RE.test(value) ? Date.parse(value) : NaN;
  }
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 7);
  const day = digitsAt(value, 8, 10);
  const hour = digitsAt(value, 11, 13);
  const minute = digitsAt(value, 14, 16);
  const second = digitsAt(value, 17, 19);
  const ms = digitsAt(value, 20, 23);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 || ms < 0) return NaN;
  // Date.UTC rolls over out-of-range parts (February 30 becomes March 2); Date.parse rejects them.
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return NaN;
  if (year < 100) return Date.parse(value); // Date.UTC reads years 0–99 as 1900–1999.
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!)) return NaN;
  return daysFromCivil(year, month, day) * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms;
}

/** The number the decimal digits of `value` from `from` to `to` spell, or -1 when one is not a digit. */
function digitsAt(value: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = value.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * Days from 1970-01-01 to a date of the proleptic Gregorian calendar (what `Date.UTC` counts),
 * in integers: the year is taken to start in March, so that the leap day comes last.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

let lastIsoInput: string | undefined;
let lastIsoTime: number | undefined;

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
