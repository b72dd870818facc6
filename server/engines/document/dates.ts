/** A calendar date as the vendor's DNI result carries it (no time zone: documents print dates, not instants). */
export interface DateParts {
  day: number;
  month: number;
  year: number;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** True for a date that exists on the Gregorian calendar (29 February only in leap years). */
export function isRealDate(d: DateParts): boolean {
  return (
    Number.isInteger(d.year) &&
    Number.isInteger(d.month) &&
    Number.isInteger(d.day) &&
    d.year >= 1 &&
    d.month >= 1 &&
    d.month <= 12 &&
    d.day >= 1 &&
    d.day <= daysInMonth(d.year, d.month)
  );
}

/** Negative, zero or positive like a comparator. */
export function compareDates(a: DateParts, b: DateParts): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

export function todayParts(now: Date = new Date()): DateParts {
  return { day: now.getDate(), month: now.getMonth() + 1, year: now.getFullYear() };
}

/** `dd/mm/yyyy`, the form printed on the card and carried in the PDF417. */
export function formatDmy(d: DateParts): string {
  return `${String(d.day).padStart(2, '0')}/${String(d.month).padStart(2, '0')}/${String(d.year).padStart(4, '0')}`;
}
