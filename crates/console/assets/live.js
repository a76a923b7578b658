// switchyard console: keeps an open page current without a reload.
//
// It follows /events (server-sent events). When a change concerns the page, it fetches the page
// again and swaps each region marked `data-live` (found by its id) with the fresh one, keeping the
// focus, the scroll positions and the open <details>. A session page (/sessions/<id>, or any page
// whose <body> has `data-live-session`) listens to its own session; other pages to every change,
// gathered into one refresh.
//
// While the stream is down it shows "Reconnecting…"; once back, it refreshes the page once, since
// changes made meanwhile were never sent. No framework, no inline code: it runs under a
// Content-Security-Policy of script-src 'self'.
(function () {
  "use strict";

  if (!window.EventSource || !window.fetch || !window.DOMParser) {
    return; // The page still works; it just does not update by itself.
  }

  // A session page refreshes soon after its session moves; a list gathers bursts of changes.
  var SESSION_DELAY_MS = 50;
  var LIST_DELAY_MS = 250;
  var LIST_MAX_WAIT_MS = 1000;
  var RETRY_MIN_MS = 1000;
  var RETRY_MAX_MS = 10000;

  var pageSession = (function () {
    var marked = document.body && document.body.getAttribute("data-live-session");
    if (marked) {
      return marked;
    }
    var match = /^\/sessions\/([^/]+)/.exec(window.location.pathname);
    return match ? decodeURIComponent(match[1]) : null;
  })();

  var status = null;
  var timer = null;
  var firstPendingAt = 0;
  var refreshing = false;
  var refreshAgain = false;
  var heldBack = false;
  var source = null;
  var lost = false;
  var retryDelay = RETRY_MIN_MS;

  function showStatus(text) {
    if (!status) {
      status = document.createElement("div");
      status.id = "live-status";
      status.setAttribute("role", "status");
      status.setAttribute("data-testid", "live-status");
      // CSSOM, not a style attribute, so a strict style-src allows it.
      status.style.position = "fixed";
      status.style.right = "1rem";
      status.style.bottom = "1rem";
      status.style.padding = "0.4rem 0.8rem";
      status.style.borderRadius = "0.4rem";
      status.style.background = "#333";
      status.style.color = "#fff";
      status.style.font = "0.9rem system-ui, sans-serif";
      status.style.zIndex = "1000";
      document.body.appendChild(status);
    }
    status.textContent = text;
    status.hidden = !text;
  }

  // Where the stream stands, for tests and styles: connecting, open or reconnecting.
  function setState(state) {
    document.documentElement.setAttribute("data-live-state", state);
  }

  function schedule(delay) {
    var now = Date.now();
    if (timer === null) {
      firstPendingAt = now;
    } else {
      window.clearTimeout(timer);
    }
    // Gathering never holds a refresh back for longer than LIST_MAX_WAIT_MS.
    var wait = Math.max(0, Math.min(delay, firstPendingAt + LIST_MAX_WAIT_MS - now));
    timer = window.setTimeout(function () {
      timer = null;
      refresh();
    }, wait);
  }

  // The element that has the focus inside `region`, if the user may be typing into it.
  function editing(region) {
    var active = document.activeElement;
    if (!active || !region.contains(active)) {
      return false;
    }
    var tag = active.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || active.isContentEditable;
  }

  function scrolled(region) {
    var positions = [];
    var candidates = [region].concat(Array.prototype.slice.call(region.querySelectorAll("[id]")));
    candidates.forEach(function (element) {
      if (element.scrollTop || element.scrollLeft) {
        positions.push({ id: element.id, top: element.scrollTop, left: element.scrollLeft });
      }
    });
    return positions;
  }

  function openDetails(region) {
    return Array.prototype.map.call(region.querySelectorAll("details[id][open]"), function (details) {
      return details.id;
    });
  }

  function swap(fresh) {
    var focusedId = document.activeElement && document.activeElement.id;
    var pageX = window.scrollX;
    var pageY = window.scrollY;
    var swapped = 0;
    document.querySelectorAll("[data-live][id]").forEach(function (region) {
      var replacement = fresh.getElementById(region.id);
      if (!replacement) {
        return;
      }
      if (editing(region)) {
        // Never throw away what someone is typing: this region waits until the focus leaves.
        heldBack = true;
        return;
      }
      var positions = scrolled(region);
      var open = openDetails(region);
      var imported = document.importNode(replacement, true);
      region.replaceWith(imported);
      open.forEach(function (id) {
        var details = document.getElementById(id);
        if (details && details.tagName === "DETAILS") {
          details.open = true;
        }
      });
      positions.forEach(function (position) {
        var element = document.getElementById(position.id);
        if (element) {
          element.scrollTop = position.top;
          element.scrollLeft = position.left;
        }
      });
      swapped += 1;
    });
    if (focusedId && document.activeElement !== document.getElementById(focusedId)) {
      var focused = document.getElementById(focusedId);
      if (focused) {
        focused.focus({ preventScroll: true });
      }
    }
    window.scrollTo(pageX, pageY);
    var title = fresh.querySelector("title");
    if (title) {
      document.title = title.textContent;
    }
    document.documentElement.setAttribute("data-live-refreshed", String(Date.now()));
    document.dispatchEvent(new CustomEvent("live:refreshed", { detail: { regions: swapped } }));
  }

  function refresh() {
    if (refreshing) {
      refreshAgain = true;
      return;
    }
    refreshing = true;
    heldBack = false;
    window
      .fetch(window.location.href, {
        headers: { Accept: "text/html" },
        credentials: "same-origin",
        cache: "no-store",
      })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("the page answered " + response.status);
        }
        return response.text();
      })
      .then(function (html) {
        swap(new DOMParser().parseFromString(html, "text/html"));
      })
      .catch(function () {
        // Leave the page as it is; the next change tries again.
      })
      .then(function () {
        refreshing = false;
        if (refreshAgain) {
          refreshAgain = false;
          refresh();
        }
      });
  }

  function concerns(data) {
    if (!pageSession) {
      return true;
    }
    try {
      return JSON.parse(data).session === pageSession;
    } catch (error) {
      return true;
    }
  }

  function connect() {
    setState(lost ? "reconnecting" : "connecting");
    source = new EventSource("/events");
    source.addEventListener("open", function () {
      retryDelay = RETRY_MIN_MS;
      setState("open");
      if (lost) {
        lost = false;
        showStatus("");
        refresh(); // What changed while the stream was down was never sent.
      }
    });
    source.addEventListener("change", function (event) {
      if (concerns(event.data)) {
        schedule(pageSession ? SESSION_DELAY_MS : LIST_DELAY_MS);
      }
    });
    source.addEventListener("reload", function () {
      schedule(0);
    });
    source.addEventListener("error", function () {
      lost = true;
      setState("reconnecting");
      showStatus("Reconnecting\u2026");
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up (the server answered with an error): try again later ourselves.
        source.close();
        window.setTimeout(connect, retryDelay);
        retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS);
      }
    });
  }

  document.addEventListener("focusout", function () {
    if (heldBack) {
      schedule(SESSION_DELAY_MS);
    }
  });
  window.addEventListener("pagehide", function () {
    if (source) {
      source.close();
    }
  });

  connect();
})();
