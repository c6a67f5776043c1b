// groundwork's analytics script: it posts a page view when the page
// loads and at each navigation of a single-page app (pushState,
// replaceState and popstate; hash changes too with data-hash), once per
// change of path, with sendBeacon; no cookie, no storage. The collect
// handler serves it without these comments (each line trimmed, and the
// ones starting // dropped), so write no // after code.
//
// Opt in, by an attribute on its script tag, to:
//   data-outbound   an outbound_link event {url} for a click on a link to another site;
//   data-downloads  a file_download event {url} for a link to a file (a download
//                   attribute, or the extensions the attribute lists, else common ones);
//   data-404        a not_found event {path} on a page the server answered 404;
//   data-engagement an engagement event {scroll_depth, seconds} as a page is left: how
//                   far down it was read (percent) and how long it was seen.
// Any element with the class gw-event-name=NAME (a + is a space) sends the
// event NAME when clicked (a form: when sent), its other gw-event-KEY=VALUE
// classes its props. window.groundworkAnalytics(name, props, {revenue:
// {amount, currency}}) sends an event of the page's own. Nothing is sent
// when the browser says Do Not Track or Global Privacy Control, unless the
// tag has data-ignore-dnt. data-endpoint replaces where views are posted.
(function () {
var d = document, w = window, l = location, n = navigator, s = d.currentScript
var at = function (k) { return s && s.getAttribute("data-" + k) }
var on = function (k) { return s && s.hasAttribute("data-" + k) }
var end = at("endpoint") || "%s/collect"
var off = !on("ignore-dnt") && (n.doNotTrack == "1" || w.doNotTrack == "1" || n.globalPrivacyControl)
var send = function (name, props, opts, url) {
if (off) return
var b = { name: name || "pageview", url: url || l.href, referrer: d.referrer, title: d.title, props: props || {} }
if (opts && opts.revenue) b.revenue = opts.revenue
b = JSON.stringify(b)
if (!(n.sendBeacon && n.sendBeacon(end, b))) fetch(end, { method: "POST", body: b, keepalive: true })
}
w.groundworkAnalytics = send
// The page being seen: its address and path, since when it has been
// visible (0 while hidden), for how long before, how far down it was read,
// and whether its engagement is told.
var url, path, since, seen, depth, told
var leave = function () {
if (!on("engagement") || told || !url) return
told = 1
if (since) seen += Date.now() - since
send("engagement", { scroll_depth: depth, seconds: Math.round(seen / 1000) }, 0, url)
}
var scrolled = function () {
var h = Math.max(d.documentElement.scrollHeight, 1)
depth = Math.max(depth, Math.min(100, Math.round((w.scrollY + w.innerHeight) / h * 100)))
}
var page = function () {
var p = l.pathname + (on("hash") ? l.hash : "")
if (p === path) return
leave()
url = l.href, path = p, since = d.hidden ? 0 : Date.now(), seen = 0, depth = 0, told = 0
scrolled()
send()
}
var h = w.history
var wrap = function (k) {
var f = h[k]
h[k] = function () { f.apply(this, arguments); page() }
}
wrap("pushState")
wrap("replaceState")
w.addEventListener("popstate", page)
if (on("hash")) w.addEventListener("hashchange", page)
w.addEventListener("scroll", scrolled, { passive: true })
d.addEventListener("visibilitychange", function () {
if (d.hidden) { if (since) seen += Date.now() - since; since = 0; if (seen) leave() } else since = Date.now()
})
w.addEventListener("pagehide", leave)
page()
var nav = w.performance && performance.getEntriesByType && performance.getEntriesByType("navigation")[0]
if (on("404") && nav && nav.responseStatus == 404) send("not_found", { path: l.pathname })
var exts = (at("downloads") || "pdf,zip,csv,xlsx,xls,docx,doc,pptx,ppt,txt,rtf,7z,rar,gz,tgz,dmg,exe,msi,pkg,iso,mp3,mp4,mov,wav,avi,epub").split(",")
var clicked = function (e) {
var a = e.target.closest && e.target.closest("a[href]")
if (a) {
var u = new URL(a.href, l.href), link = u.origin + u.pathname, ext = u.pathname.split(".").pop().toLowerCase()
if (on("downloads") && (a.hasAttribute("download") || u.pathname.indexOf(".") > 0 && exts.indexOf(ext) >= 0)) send("file_download", { url: link })
else if (on("outbound") && /^https?:$/.test(u.protocol) && u.host != l.host) send("outbound_link", { url: link })
}
tagged(e.target && e.target.closest && e.target.closest("[class*=gw-event-]"), "FORM")
}
var tagged = function (el, not) {
if (!el || el.tagName == not) return
var name, props = {}
el.classList.forEach(function (c) {
var m = /^gw-event-([^=]+)=(.+)$/.exec(c)
if (m) { var v = m[2].replace(/\+/g, " "); if (m[1] == "name") name = v; else props[m[1]] = v }
})
if (name) send(name, props)
}
d.addEventListener("click", clicked)
d.addEventListener("auxclick", function (e) { if (e.button == 1) clicked(e) })
d.addEventListener("submit", function (e) { tagged(e.target, "") })
})()
