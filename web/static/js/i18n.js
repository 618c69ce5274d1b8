// The page's words in the chosen language: the server embeds that language's catalog
// (web/i18n.py) and every script looks its words up here, through t() and tn() alone.
// Message ids are the English words with {name} placeholders, as gettext and the engine
// write them; a word missing from the catalog shows in English, never as an id.

const node = document.getElementById("i18n-catalog");
const catalog = (() => {
  try { return JSON.parse(node ? node.textContent : "{}"); } catch { return {}; }
})();

/** The page's language code ("en", "ja", "uk", "pl", "cs"). */
export const lang = catalog.lang || document.documentElement.lang || "en";
const messages = catalog.messages || {};

const numbers = new Intl.NumberFormat(lang);
const plurals = new Intl.PluralRules(lang);
// gettext's plural forms come in CLDR's order of categories (one, few, many, other), as
// Babel writes them: a category's place among this language's is its form's index
const ORDER = ["zero", "one", "two", "few", "many", "other"];
const categories = ORDER.filter((c) => plurals.resolvedOptions().pluralCategories.includes(c));

function fillIn(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!params || !(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" ? numbers.format(value) : String(value ?? "");
  });
}

/** ``msgid`` in the page's language, its {placeholders} filled from ``params``. */
export function t(msgid, params = {}) {
  const text = messages[msgid];
  return fillIn(typeof text === "string" && text ? text : msgid, params);
}

/** A sentence counting ``n`` things: the language's plural form, {n} among the params. */
export function tn(singular, plural, n, params = {}) {
  const forms = messages[singular];
  const all = { n, ...params };
  if (Array.isArray(forms) && forms.length) {
    const index = Math.min(categories.indexOf(plurals.select(n)), forms.length - 1);
    const text = forms[Math.max(index, 0)];
    if (text) return fillIn(text, all);
  }
  return fillIn(n === 1 ? singular : plural, all);
}

/** A sentence the engine or the server sent as {msgid, params[, plural, n]} (engine/words.py). */
export function said(words) {
  if (!words || typeof words.msgid !== "string") return "";
  // a parameter may be words itself ("{action}: it is {player}'s turn")
  // (a list of words: said one after another, as the engine joins them)
  const params = Object.fromEntries(Object.entries(words.params || {}).map(([key, value]) =>
    [key, Array.isArray(value) ? value.map(said).join("; ") : value && typeof value === "object" ? said(value) : value]));
  // "claims" is an Impus kind in English's plural (orcs, elves); another language names the
  // kind as the table typed it ("claim"), its own words for it
  if (lang !== "en" && "claim" in params) params.claims = params.claim;
  return words.plural ? tn(words.msgid, words.plural, words.n, params) : t(words.msgid, params);
}

/** A number as the page's language writes it. */
export function num(value, options) {
  return typeof value === "number" ? new Intl.NumberFormat(lang, options).format(value) : String(value ?? "");
}

/** A moment (seconds since the epoch, or a Date) as the page's language writes it. */
export function dateTime(value, options = { dateStyle: "medium", timeStyle: "short" }) {
  const date = value instanceof Date ? value : new Date(Number(value) * 1000);
  return Number.isNaN(date.getTime()) ? "" : new Intl.DateTimeFormat(lang, options).format(date);
}

// The picker in the top bar: the choice is kept on this device (a cookie the server reads,
// and localStorage), and the page is drawn again in it.
const COOKIE = "bluffcam_lang";
const picker = document.getElementById("lang-picker");
if (picker) {
  picker.addEventListener("change", () => {
    const code = picker.value;
    document.cookie = `${COOKIE}=${encodeURIComponent(code)}; path=/; max-age=${400 * 24 * 3600}; samesite=lax`;
    try { localStorage.setItem(COOKIE, code); } catch { /* private mode: the cookie keeps it */ }
    const url = new URL(location.href);
    url.searchParams.delete("lang");
    location.replace(url.toString());
  });
}
// localStorage mirrors the device's cookie; a device whose cookie was cleared but whose
// localStorage kept the choice gets it back
const cookieSet = () => document.cookie.split("; ").find((c) => c.startsWith(`${COOKIE}=`));
try {
  const kept = localStorage.getItem(COOKIE);
  if (cookieSet()) {
    localStorage.setItem(COOKIE, decodeURIComponent(cookieSet().slice(COOKIE.length + 1)));
  } else if (kept) {
    document.cookie = `${COOKIE}=${encodeURIComponent(kept)}; path=/; max-age=${400 * 24 * 3600}; samesite=lax`;
    // reloaded only where the cookie took (a browser refusing cookies would reload forever)
    if (cookieSet() && kept !== lang && !new URLSearchParams(location.search).has("lang")) location.reload();
  }
} catch { /* no storage: the cookie alone */ }
