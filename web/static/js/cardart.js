// The calibration page's "Card art" section (Impus Bluff): one photo of one card per kind,
// laid face up alone on the table. The server finds the card, keeps its upright face in
// <data>/cards/ and the camera names turned-up cards by matching against these.

import { api, ApiError, describeError, getPin } from "./api.js";
import { announce, el, fill, chooseFileButton } from "./ui.js";
import { t } from "./i18n.js";

const root = document.getElementById("card-art-root");

let listing = null;   // {registered, wanted, missing}
let busyKind = null;
let message = "";
let error = "";

async function load() {
  try {
    listing = await api("GET", "/api/cards");
  } catch (e) {
    error = describeError(e);
    announce(error, { urgent: true });
  }
  render();
}

async function upload(kind, file) {
  if (!file) return;
  busyKind = kind; error = ""; message = ""; render();
  try {
    const meta = document.querySelector('meta[name="csrf-token"]');
    const form = new FormData();
    form.append("image", file);
    const response = await fetch(`/api/cards/${encodeURIComponent(kind)}`, {
      method: "POST", body: form, credentials: "same-origin",
      headers: { "X-CSRF-Token": meta ? meta.content : "", "X-Table-PIN": getPin(),
        "Accept": "application/json" },
    });
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      throw new ApiError((data && data.error && data.error.message) || `${response.status} ${response.statusText}`,
        { rule: data && data.error ? data.error.rule : null, status: response.status });
    }
    listing = data;
    message = `✓ ${kind} registered`;
    announce(message);
  } catch (e) {
    error = describeError(e);
    announce(error, { urgent: true });
  } finally {
    busyKind = null; render();
  }
}

function kindRow(kind) {
  const done = listing.registered.includes(kind);
  const id = `card-upload-${kind}`;
  return el("li", { class: "row card-kind", "data-kind": kind },
    el("span", { class: done ? "count-ok" : "count-bad" }, done ? "✓" : "✗"),
    el("strong", {}, kind),
    // its name starts with the words it shows (WCAG 2.5.3: a voice user says what they see)
    chooseFileButton(id, { class: "btn", "aria-label": done ? t("Replace photo of {kind}", { kind }) : t("Upload photo of {kind}", { kind }) },
      busyKind === kind ? t("Reading…") : (done ? t("Replace photo…") : t("Upload photo…"))),
    el("input", { type: "file", id, accept: "image/*", hidden: true,
      onchange: (e) => upload(kind, e.target.files && e.target.files[0]) }));
}

function render() {
  if (!root) return;
  const kinds = listing ? [...new Set([...listing.wanted, ...listing.registered])] : [];
  fill(root,
    el("section", { class: "card stack", id: "card-art" },
      el("h2", {}, t("Card art (Impus Bluff)")),
      el("p", { class: "hint" }, t("Lay one card of each kind face up, alone, and photograph it "
        + "(or upload a tight scan of its face). The camera names turned-up cards by these.")),
      listing ? el("p", { id: "card-art-summary" }, listing.missing.length
        ? t("{count} of {total} kinds still missing (✗ below)", { count: listing.missing.length, total: listing.wanted.length })
        : `✓ ${t("every kind is registered")}`) : null,
      el("ul", { class: "card-kinds" }, kinds.map(kindRow)),
      // said once by announce(): these boxes are drawn anew at every change
      el("p", { class: "count-ok", id: "card-art-message" }, message),
      el("p", { class: "error", id: "card-art-error" }, error)));
}

load();
