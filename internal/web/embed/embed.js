// groundwork's embed script, loaded by a page on another site to show a
// booking page or a form of this one inside it. Either one script tag
// places the page where the tag is:
//
//   <script src="https://book.example.com/bookings/embed.js" data-page="/bookings/intro"
//     data-mode="inline" async></script>
//
// or a link, which is what a browser without JavaScript follows, becomes
// the page (the script loaded once anywhere on the page):
//
//   <a href="https://book.example.com/bookings/intro" data-groundwork-embed="popup">Book a call</a>
//
// data-mode (or data-groundwork-embed) is "inline" (the page in place),
// "popup" (the link opens it in a dialog) or "floating" (a button in the
// corner of the window opens it); data-theme ("light" or "dark") and
// data-lang choose the page's theme and language (the host page's lang by
// default); on a form, data-values (a query string, "account=A-17") fills
// the fields that take a value from the address, hidden ones among them,
// and data-prefill passes a signed prefill token. The frame is as tall as its page, which tells its height;
// the host page's utm_ parameters and where its visitor came from are
// passed on, so the framed page's visit counts its campaign. Events the
// framed page tells (bookingSuccessful, formSubmitted) are dispatched on
// the link's (or script's) place as DOM events named "groundwork:" and the
// event, their detail its data; they bubble to document (a form with a
// redirect_url sends the page there after formSubmitted, unless a
// listener calls preventDefault). Messages are
// taken only from the frame's own window and this site's origin, and the
// framed page only tells the origin that framed it.
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !script.src) return;
  var origin = new URL(script.src).origin;
  var frames = window.groundworkFrames || (window.groundworkFrames = []);

  // address is the framed page's address: href on this site, with the
  // framing origin, the theme and language, and the visit's source.
  function address(href, opts) {
    var url = new URL(href, origin), q = url.searchParams;
    q.set("embed", location.origin);
    new URLSearchParams(location.search).forEach(function (v, k) {
      if (/^utm_/.test(k) && !q.has(k)) q.set(k, v);
    });
    if (!q.has("utm_source") && !q.has("ref") && document.referrer) {
      var from = new URL(document.referrer);
      if (from.origin !== location.origin) q.set("ref", from.hostname);
    }
    // A form's hidden fields (and any that take a value from the
    // address) from the host page: data-values="account=A-17&plan=pro",
    // and data-prefill, a signed prefill token made by the host.
    new URLSearchParams(opts.values || "").forEach(function (v, k) {
      if (!q.has(k)) q.append(k, v);
    });
    if (opts.prefill) q.set("prefill", opts.prefill);
    if (opts.theme) q.set("theme", opts.theme);
    var lang = opts.lang || document.documentElement.lang;
    if (lang && !q.has("lang")) q.set("lang", lang);
    return url.href;
  }

  // frame makes the iframe of href, titled as the link reads; place is
  // where its events are dispatched.
  function frame(href, opts, title, place) {
    var f = document.createElement("iframe");
    f.src = address(href, opts);
    f.title = title;
    f.style.cssText = "display:block;width:100%;border:0;height:36rem;color-scheme:normal";
    frames.push({ frame: f, origin: origin, place: place });
    return f;
  }

  // dialog opens href in a modal dialog, which takes the focus itself
  // (not its Close button, which the Enter that opened it would press);
  // Escape, here or inside the frame, or Close shuts it, and the focus
  // goes back to the opener.
  function dialog(href, opts, title, place) {
    var d = document.createElement("dialog"), close = document.createElement("button");
    d.setAttribute("aria-label", title);
    d.tabIndex = -1;
    d.style.cssText = "width:min(48rem,calc(100vw - 2rem));max-height:calc(100vh - 2rem);padding:0;border:0;border-radius:.5rem;overflow:auto";
    // The dialog's own part, around the frame, in the page's colours.
    var dark = opts.theme ? opts.theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
    d.style.background = dark ? "#0b1120" : "#f6f7f9";
    close.type = "button";
    close.textContent = "Close";
    close.style.cssText = "display:block;margin:.5rem .5rem 0 auto;min-height:44px;min-width:44px;padding:0 .75rem;font:600 1rem system-ui,sans-serif;" +
      "cursor:pointer;background:transparent;border:1px solid;border-radius:.375rem;color:" + (dark ? "#e5e7eb" : "#111827");
    close.addEventListener("click", function () { d.close(); });
    d.append(close, frame(href, opts, title, place));
    document.body.append(d);
    return d;
  }

  function options(el) {
    return { theme: el.getAttribute("data-theme"), lang: el.getAttribute("data-lang"), values: el.getAttribute("data-values"),
      prefill: el.getAttribute("data-prefill") };
  }

  // place puts the page of href in the way mode says, at el (a link, or
  // this script).
  function place(el, href, mode, title) {
    var opts = options(el), d;
    if (mode === "popup" || mode === "floating") {
      var opener = el;
      if (mode === "floating") {
        opener = document.createElement("button");
        opener.type = "button";
        opener.textContent = title;
        opener.style.cssText = "position:fixed;right:1rem;bottom:1rem;z-index:2147483000;min-height:44px;padding:.5rem 1rem;font:inherit;cursor:pointer;border-radius:999px";
        document.body.append(opener);
        if (el.tagName === "A") el.hidden = true;
      }
      opener.setAttribute("aria-haspopup", "dialog");
      opener.addEventListener("click", function (e) {
        e.preventDefault();
        d = d || dialog(href, opts, title, el);
        d.showModal();
        d.focus();
      });
      return;
    }
    var box = document.createElement("div");
    box.append(frame(href, opts, title, box));
    el.replaceWith(box);
  }

  // One listener for every copy of the script on the page (a page may
  // load it from the bookings and the forms pages): they share the frames.
  if (!window.groundworkListening) window.addEventListener("message", function (e) {
    var m = e.data;
    if (!m || m.source !== "groundwork" || typeof m.event !== "string") return;
    for (var i = 0; i < frames.length; i++) {
      var f = frames[i];
      if (f.frame.contentWindow !== e.source || f.origin !== e.origin) continue;
      if (m.event === "resize") {
        var h = Number(m.data && m.data.height);
        if (h > 0) f.frame.style.height = Math.ceil(h) + "px";
      } else if (m.event === "close") {
        var d = f.frame.closest("dialog");
        if (d) d.close();
      } else {
        // A form's redirect_url: the host page goes there, unless a
        // listener of the event calls preventDefault.
        var go = m.data && typeof m.data.redirect_url === "string" && /^https?:\/\//.test(m.data.redirect_url) ? m.data.redirect_url : "";
        var ev = new CustomEvent("groundwork:" + m.event, { detail: m.data, bubbles: true, cancelable: !!go });
        if ((f.place.isConnected ? f.place : document).dispatchEvent(ev) && go) location.assign(go);
      }
    }
  });

  window.groundworkListening = true;

  function start() {
    var page = script.getAttribute("data-page");
    if (page) place(script, page, script.getAttribute("data-mode") || "inline", script.getAttribute("data-title") || "Booking");
    var links = document.querySelectorAll("a[data-groundwork-embed]");
    for (var i = 0; i < links.length; i++) {
      var a = links[i];
      if (a.dataset.groundworkPlaced || new URL(a.href, location.href).origin !== origin) continue;
      a.dataset.groundworkPlaced = "1";
      place(a, a.href, a.getAttribute("data-groundwork-embed") || "inline", a.textContent.trim() || "Booking");
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
