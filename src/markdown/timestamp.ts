/**
 * `<time:...>` values. The reference accepts anything dateutil can parse, or a Unix time;
 * we accept ISO 8601, the written-out dates V8's parser reads ("Jun 5th 2017, 10:30PM",
 * "31 Dec 2017"), common zone abbreviations, and Unix times. A value without a zone is UTC.
 */

/** Offsets for zone names V8 does not know (it knows UTC, GMT and the US zones). */
const ZONES: Record<string, string> = {
  IST: '+0530', CET: '+0100', CEST: '+0200', EET: '+0200', EEST: '+0300', WET: '+0000',
  WEST: '+0100', BST: '+0100', JST: '+0900', KST: '+0900', AEST: '+1000', AEDT: '+1100',
  NZST: '+1200', NZDT: '+1300', HKT: '+0800', SGT: '+0800', MSK: '+0300',
};
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2}|\b(?:UTC|GMT|[ECMP][SD]T))$/i;

/** The reference's `datetime` attribute (UTC, "Z" suffix), or undefined when unparseable. */
export function parseTimestamp(input: string): string | undefined {
  const text = input.trim();
  if (!text || text.length > 100) return undefined;
  let ms: number;
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    let cleaned = text
      .replace(/(\d)(st|nd|rd|th)\b/gi, '$1')
      .replace(/,/g, ' ')
      .replace(/(\d)(am|pm)\b/gi, '$1 $2')
      .replace(/\b([A-Z]{3,4})$/, (zone) => ZONES[zone] ?? zone)
      .trim();
    if (!/[0-9]/.test(cleaned)) return undefined;
    if (!HAS_ZONE.test(cleaned)) cleaned = /^\d{4}-\d{2}-\d{2}T/.test(cleaned) ? cleaned + 'Z' : cleaned + ' UTC';
    ms = Date.parse(cleaned);
  }
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return undefined;
  const date = new Date(ms);
  const fraction = date.getUTCMilliseconds();
  const base = date.toISOString().slice(0, 19);
  return fraction ? `${base}.${String(fraction * 1000).padStart(6, '0')}Z` : `${base}Z`;
}
