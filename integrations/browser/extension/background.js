// handoff's browser extension: the focused tab (title and URL) becomes this machine's current activity, through
// the native messaging host org.handoff.browser (`handoff browser-host`). One source for Chromium and Firefox.
//
// Never offered: a tab of a private (incognito) window, and any URL that is not http or https with a host. When
// the focused tab cannot be offered, what was offered is withdrawn. The host checks both again.
"use strict";

const api = globalThis.browser ?? globalThis.chrome;
const HOST = "org.handoff.browser";

let port = null;
// What was last sent, so the host hears only changes ("withdraw" at first: nothing is offered yet).
let lastSent = JSON.stringify({ type: "withdraw" });
// The host's last reply, for a look in the extension's console.
let lastReply = null;

function connect() {
  if (port) return port;
  port = api.runtime.connectNative(HOST);
  port.onMessage.addListener((reply) => {
    lastReply = reply;
    if (!reply.ok) console.warn("handoff:", reply.error);
  });
  port.onDisconnect.addListener(() => {
    const error = api.runtime.lastError;
    if (error) console.warn("handoff: the native host went away:", error.message);
    port = null;
    // A new host offers nothing yet.
    lastSent = JSON.stringify({ type: "withdraw" });
  });
  return port;
}

// Whether a tab may be offered: not private, and http or https with a host.
function offerable(tab) {
  if (!tab || tab.incognito || typeof tab.url !== "string") return false;
  let url;
  try {
    url = new URL(tab.url);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}

function consider(tab) {
  const message = offerable(tab)
    ? { type: "offer", url: tab.url, title: tab.title || tab.url, incognito: false }
    : { type: "withdraw" };
  const key = JSON.stringify(message);
  if (key === lastSent) return;
  lastSent = key;
  try {
    connect().postMessage(message);
  } catch (error) {
    console.warn("handoff:", error);
    port = null;
  }
}

async function considerFocusedTab() {
  const [tab] = await api.tabs.query({ active: true, lastFocusedWindow: true });
  if (tab) consider(tab);
}

api.tabs.onActivated.addListener(({ tabId }) => {
  api.tabs.get(tabId).then(consider, () => {});
});

api.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (!tab.active || !("url" in change || "title" in change || change.status === "complete")) return;
  api.windows.get(tab.windowId).then((window) => {
    if (window.focused || window.incognito) consider(tab);
    else considerFocusedTab();
  }, () => {});
});

api.windows.onFocusChanged.addListener((windowId) => {
  // Focus left the browser: the tab stays offered, as the last thing the user looked at.
  if (windowId === api.windows.WINDOW_ID_NONE) return;
  api.windows.get(windowId, { populate: true }).then((window) => {
    if (window.incognito) consider({ incognito: true });
    else consider(window.tabs.find((tab) => tab.active));
  }, () => {});
});

api.runtime.onStartup?.addListener(considerFocusedTab);
api.runtime.onInstalled?.addListener(considerFocusedTab);
