/**
 * A timestamp as A2A writes `google.protobuf.Timestamp` in JSON (§5.6.1): an ISO 8601 combined
 * date and time in UTC, `2026-03-07T12:00:00Z`, optionally with fractions of a second, and no
 * offset other than `Z`. Lenient parsers take "2024", "12" or "March 7, 2020" too, each a guess
 * at what was meant; a filter built on a guess lists the wrong tasks without saying so.
 */
const UTC_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;

const daysIn = (year: number, month: number): number => {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
};

/** The instant in ms since the epoch, or undefined when the text is not such a timestamp. */
export const parseUtcTimestamp = (text: string): number | undefined => {
  const match = UTC_TIMESTAMP.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  return Date.parse(text);
};
