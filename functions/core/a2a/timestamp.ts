/**
 * An RFC 3339 date-time (the ISO 8601 profile ProtoJSON gives `google.protobuf.Timestamp`, A2A
 * §5.6.1): `2026-03-07T12:00:00Z`, with optional fractions of a second and a `Z` or `±hh:mm`
 * offset. Lenient parsers take "2024", "12" or "March 7, 2020" too, each a guess at what was
 * meant; a filter built on a guess lists the wrong tasks without saying so.
 */
const RFC_3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

const daysIn = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

/** The instant in ms since the epoch, or undefined when the text is not an RFC 3339 date-time. */
export const parseRfc3339 = (text: string): number | undefined => {
  const match = RFC_3339.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offsetHours = match[9] === undefined ? 0 : Number(match[9]);
  const offsetMinutes = match[10] === undefined ? 0 : Number(match[10]);
  // A leap second (":60") is allowed by RFC 3339; Date folds it into the next minute.
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) {
    return undefined;
  }
  const parsed = Date.parse(text.toUpperCase());
  return Number.isNaN(parsed) ? undefined : parsed;
};
