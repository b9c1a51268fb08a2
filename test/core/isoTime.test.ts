/**
 * `isoTime`'s fast path for the form Pi writes (`YYYY-MM-DDTHH:mm:ss.sssZ`, read with integer
 * arithmetic instead of `Date.UTC`) against a reading of the same strings written another way: a
 * regular expression, `Date.UTC`, and the calendar's month lengths from `Date` itself. Random
 * strings of that shape cover out-of-range parts (month 13, February 29 of a common year, hour
 * 24, second 60), two-digit years, and non-digits where digits belong.
 */

import { describe, expect, it } from "vitest";
import { isIsoTimestamp, isoTime } from "../../server/src/core/line/isoTime";
import { seededRandom } from "../helpers/lspClient";

const PI_FORM = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$/;

/** The time the string stands for, read with `Date`; undefined for a part out of range. */
function expected(value: string): number | undefined {
  const m = PI_FORM.exec(value);
  if (!m) {
    const t = Date.parse(value);
    return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(t) ? t : undefined;
  }
  const [year, month, day, hour, minute, second, ms] = m.slice(1).map(Number) as [number, number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (year < 100) {
    const t = Date.parse(value);
    return Number.isNaN(t) ? undefined : t;
  }
  // Day 0 of the next month is the last day of this one.
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

describe("isoTime", () => {
  it("reads the times Pi writes", () => {
    expect(isoTime("1970-01-01T00:00:00.000Z")).toBe(0);
    expect(isoTime("2026-03-02T10:00:00.002Z")).toBe(Date.UTC(2026, 2, 2, 10, 0, 0, 2));
    expect(isoTime("2024-02-29T23:59:59.999Z")).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999));
    expect(isoTime("2000-02-29T00:00:00.000Z")).toBe(Date.UTC(2000, 1, 29));
    expect(isoTime("0100-03-01T00:00:00.000Z")).toBe(Date.parse("0100-03-01T00:00:00.000Z"));
    expect(isoTime("9999-12-31T23:59:59.999Z")).toBe(Date.parse("9999-12-31T23:59:59.999Z"));
  });

  it("refuses parts out of range, as Date.parse does", () => {
    for (const value of [
      "2025-02-29T00:00:00.000Z",
      "1900-02-29T00:00:00.000Z",
      "2026-13-01T00:00:00.000Z",
      "2026-04-31T00:00:00.000Z",
      "2026-01-01T24:00:00.000Z",
      "2026-01-01T00:60:00.000Z",
      "2026-01-00T00:00:00.000Z",
    ]) {
      expect(isoTime(value), value).toBeUndefined();
      expect(isIsoTimestamp(value), value).toBe(false);
    }
  });

  it("equals Date's reading on 200,000 random strings of Pi's shape", () => {
    const random = seededRandom(20261202);
    const int = (n: number) => Math.floor(random() * n);
    const pad = (n: number, width: number) => String(n).padStart(width, "0");
    const odd = "0123456789-T:.Z +x";
    let differ = 0;
    const examples: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      let value = `${pad(int(10_000), 4)}-${pad(int(14), 2)}-${pad(int(33), 2)}T${pad(int(26), 2)}:${pad(int(62), 2)}:${pad(int(62), 2)}.${pad(int(1000), 3)}Z`;
      if (random() < 0.2) {
        const at = int(24);
        value = value.slice(0, at) + odd[int(odd.length)]! + value.slice(at + 1);
      }
      if (isoTime(value) !== expected(value)) {
        differ++;
        if (examples.length < 5) examples.push(value);
      }
    }
    expect({ differ, examples }).toEqual({ differ: 0, examples: [] });
  });
});
