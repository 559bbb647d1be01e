// Event times in import files: ISO 8601 (a date, or a date and time; no offset = UTC), epoch
// milliseconds, or a LoCoMo session date ("1:56 pm on 8 May, 2023", read as UTC). Strict: an
// impossible date (2024-02-30) is an error, never rolled over into the next month.

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const LOCOMO = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i;
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MIN_MS = -62135596800000; // year 1
const MAX_MS = 253402300799999; // year 9999

/** Epoch ms of a UTC calendar time, or NaN when a component is out of range. */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return NaN;
  const t = new Date(0);
  t.setUTCFullYear(year, month - 1, day);
  t.setUTCHours(hour, minute, second, ms);
  return t.getUTCDate() === day ? t.getTime() : NaN; // Feb 30 rolls over: refuse it
}

function offsetMinutes(zone: string | undefined): number {
  if (!zone || zone.toUpperCase() === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -minutes : minutes;
}

function parseIso(value: string): number | undefined {
  const m = ISO.exec(value);
  if (!m) return undefined;
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const local = utc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), ms);
  return local - offsetMinutes(m[8]) * 60_000;
}

function parseLocomo(value: string): number | undefined {
  const m = LOCOMO.exec(value);
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  const hour = Number(m[1]);
  if (month < 0 || hour < 1 || hour > 12) return NaN;
  return utc(Number(m[6]), month + 1, Number(m[4]), (hour % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0), Number(m[2]));
}

/**
 * An event time → epoch ms; null/undefined → undefined. Throws a message naming `field` for
 * anything else. `locomo` also accepts LoCoMo's session dates.
 */
export function parseEventTime(value: unknown, field: string, options: { locomo?: boolean } = {}): number | undefined {
  if (value === undefined || value === null) return undefined;
  let ms: number | undefined;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`${field}: epoch milliseconds must be a whole number, got ${value}`);
    ms = value;
  } else if (typeof value === 'string') {
    const text = value.trim();
    ms = parseIso(text) ?? (options.locomo ? parseLocomo(text) : undefined);
    if (ms === undefined) {
      const formats = options.locomo ? 'ISO 8601, epoch milliseconds or "1:56 pm on 8 May, 2023"' : 'ISO 8601 (2024-05-08T13:56:00Z) or epoch milliseconds';
      throw new Error(`${field}: expected ${formats}, got ${JSON.stringify(value)}`);
    }
    if (Number.isNaN(ms)) throw new Error(`${field}: no such date or time: ${JSON.stringify(value)}`);
  } else {
    throw new Error(`${field}: must be an ISO 8601 string or epoch milliseconds, got ${Array.isArray(value) ? 'an array' : typeof value}`);
  }
  if (ms < MIN_MS || ms > MAX_MS) throw new Error(`${field}: must be between year 1 and year 9999`);
  return ms;
}
