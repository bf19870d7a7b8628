/**
 * Language codes the reference server has translations for (its locale/ directory, in Django's
 * code form: zh_Hans -> zh-hans). A realm's default_language, and a user's, must be one of them;
 * anything else is "Invalid language '<code>'".
 */
export const LANGUAGE_CODES: ReadonlySet<string> = new Set([
  'ar', 'be', 'bg', 'bn', 'bqi', 'ca', 'cs', 'cy', 'da', 'de', 'el', 'en', 'en-gb', 'eo', 'es',
  'fa', 'fi', 'fr', 'gl', 'gu', 'hi', 'hu', 'id', 'it', 'ja', 'ko', 'lt', 'lv', 'ml', 'mn', 'my',
  'nl', 'no', 'pl', 'pt', 'pt-br', 'pt-pt', 'ro', 'ru', 'si', 'sl', 'sr', 'sv', 'ta', 'tl', 'tr',
  'uk', 'vi', 'zh-hans', 'zh-hant', 'zh-tw',
]);

/**
 * A language's name in that language ("Deutsch", "español"), as the reference's language list
 * names it in the language_name of default_language events. ICU has the names; a code it does
 * not know reads as itself.
 */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames([code], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}
