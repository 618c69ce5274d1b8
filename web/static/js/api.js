// Talking to the table: the JSON API, the table PIN, and the live state stream.
// Every page imports this; nothing here draws anything except the "live" badge.

import { said, t } from "./i18n.js";

const PIN_KEY = "bluffcam.pin";

/** Where a camera capture goes: with a reading waiting for review (``reviewId``), that
 * reading taken again by name; a capture naming none is refused while one waits, lest it
 * throw away a review another screen left. */
export function captureUrl(reviewId) {
  return reviewId ? `/api/reveals/${encodeURIComponent(reviewId)}/recapture` : "/api/reveal/capture";
}

/** An API refusal: the server's rule id (when it names one) and its message. */
export class ApiError extends Error {
  constructor(message, { rule = null, status = 0, words = null } = {}) {
    super(message);
    this.name = "ApiError";
    this.rule = rule;
    this.status = status;
    // the refusal as a message id and its parameters, where the engine sent one
    this.words = words;
  }
}

export function getPin() {
  try { return localStorage.getItem(PIN_KEY) || ""; } catch { return ""; }
}

export function setPin(pin) {
  try {
    if (pin) localStorage.setItem(PIN_KEY, pin); else localStorage.removeItem(PIN_KEY);
  } catch { /* private mode: the PIN just is not remembered */ }
}

// A phone that scanned the board's QR code (web/join.py) arrives with the PIN in the
// address's fragment, which never reaches a server: keep it, and clear it from the address.
const pinOffered = new URLSearchParams(location.hash.slice(1)).get("pin");
if (pinOffered) {
  setPin(pinOffered);
  history.replaceState(null, "", location.pathname + location.search);
}

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

/** Call the API (with the stored PIN unless one is given). Resolves with the JSON body; rejects with ApiError. */
export async function api(method, path, body, { pin = getPin() } = {}) {
  const headers = { "Accept": "application/json", "X-Requested-With": "bluffcam" };
  if (pin) headers["X-Table-PIN"] = pin;
  const token = csrfToken();
  if (token) headers["X-CSRF-Token"] = token;
  const init = { method, headers, credentials: "same-origin" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(t("The table is not reachable. Is the server running?"), { status: 0 });
  }
  let data = null;
  const text = await response.text();
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (!response.ok) {
    const err = data && data.error;
    const message = (err && (err.message || (typeof err === "string" ? err : null)))
      || `${response.status} ${response.statusText}`.trim();
    throw new ApiError(message, { rule: err && err.rule ? err.rule : null, status: response.status,
      words: err && err.said ? err.said : null });
  }
  return data;
}

/** Words for an ApiError, with its rule id when the server gave one. */
export function describeError(error) {
  // the server asks an API client for a header; a person on a page other than the control
  // page (calibration, review) has no PIN field there
  if (error instanceof ApiError && error.status === 401 && error.rule === "pin") {
    return t("This needs the table PIN (shown on the board): enter it once on the control page, "
      + "then try again here.");
  }
  // a rule of the games (B10, S4, I3) is worth citing to the table; the server's own
  // kinds of refusal ("format", "pin", "camera") mean nothing to a player
  // the rules' refusals come with their words as an id: said in the page's language (the
  // table's own, a camera or a disk fault, without their kind of refusal)
  if (error instanceof ApiError && error.words && error.rule) {
    return ["camera", "storage"].includes(error.rule) ? said(error.words) : `${said(error.words)} (${error.rule})`;
  }
  if (error instanceof ApiError && /^[A-Z]\d+$/.test(error.rule || "")
      && !error.message.includes(error.rule)) {
    return `${error.message} (${error.rule})`;
  }
  return error && error.message ? error.message : String(error);
}

function setLiveBadge(status) {
  const badge = document.getElementById("live");
  if (!badge) return;
  badge.dataset.status = status;
  badge.textContent = { live: t("live"), connecting: t("connecting…"), reconnecting: t("reconnecting…") }[status]
    || status;
}

/**
 * Follow the table's state: fetch it once, then re-render on every SSE `state` event.
 * The browser's EventSource retries by itself; when it gives up (a closed stream, a
 * restarted server) we open a new one with a growing delay. Stale versions are dropped,
 * except a lower one just after a reconnect (a restarted server whose clock is behind).
 */
export function followState(onState) {
  let lastVersion = -1;
  let source = null;
  let retryDelay = 500;
  let everConnected = false;

  let reconnected = false;

  const deliver = (state) => {
    if (!state || typeof state !== "object") return;
    const version = typeof state.version === "number" ? state.version : lastVersion + 1;
    // already drawn (the fetch and the stream overlap) or older; but a server restarted
    // with its clock behind (a Pi without a clock battery) counts from lower: after a
    // reconnect, a lower version is that server's state, and it wins once
    const restarted = reconnected && version < lastVersion;
    if (version <= lastVersion && !restarted) return;
    reconnected = false;
    lastVersion = version;
    onState(state);
  };

  const refresh = () => api("GET", "/api/state").then(deliver).catch(() => {});

  const open = () => {
    setLiveBadge(everConnected ? "reconnecting" : "connecting");
    source = new EventSource("/api/events");
    source.addEventListener("open", () => {
      everConnected = true;
      retryDelay = 500;
      setLiveBadge("live");
      reconnected = true; // the next state may come from a restarted server (deliver)
      refresh(); // anything missed while away
    });
    source.addEventListener("state", (event) => {
      try { deliver(JSON.parse(event.data)); } catch { /* a torn event: the next one heals it */ }
    });
    source.addEventListener("error", () => {
      setLiveBadge("reconnecting");
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        setTimeout(open, retryDelay);
        retryDelay = Math.min(retryDelay * 2, 8000);
      }
    });
  };

  refresh();
  open();
  return {
    refresh,
    close: () => source && source.close(),
  };
}
