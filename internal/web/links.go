package web

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// LinkBase is the site's address for links sent by mail: base, else the
// address the server accepted r's connection on. Never a request header:
// a forged Host would send a link (and what it opens) to someone else.
func LinkBase(r *http.Request, base *url.URL) string {
	if base != nil {
		return strings.TrimSuffix(base.String(), "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		return scheme + "://" + local.String()
	}
	return scheme + "://localhost"
}
