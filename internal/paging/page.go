// Package paging is the list envelope of every list route: the page and
// per_page a request asks for, and {"data", "meta", "links"} with
// absolute links.
package paging

import (
	"net/http"

	"net/url"
	"strconv"
	"strings"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
)

// Paging defaults of list endpoints; see [groundwork.PerPageDefault].
const (
	PerPageDefault = groundwork.PerPageDefault
	PerPageMax     = groundwork.PerPageMax
)

// PageRequest is the page a list endpoint was asked for.
type PageRequest = groundwork.PageRequest

// ParsePage reads page (default 1) and per_page (default perPageDefault,
// at most PerPageMax) from the query, adding bad values' messages to v
// (the list's other query parameters may add theirs).
func ParsePage(r *http.Request, perPageDefault int, v *api.Validator) PageRequest {
	if perPageDefault <= 0 {
		perPageDefault = PerPageDefault
	}
	p := PageRequest{Page: 1, PerPage: perPageDefault}
	q := r.URL.Query()
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		switch {
		case err != nil:
			v.Add("page", api.MsgInteger("page"))
		case n < 1:
			v.Add("page", api.MsgMin("page", 1))
		default:
			p.Page = n
		}
	}
	if s := q.Get("per_page"); s != "" {
		n, err := strconv.Atoi(s)
		switch {
		case err != nil:
			v.Add("per_page", api.MsgInteger("per_page"))
		case n < 1 || n > PerPageMax:
			v.Add("per_page", api.MsgBetween("per_page", 1, PerPageMax))
		default:
			p.PerPage = n
		}
	}
	return p
}

// Page is the list envelope of every list route:
//
//	{"data": [...], "meta": {current_page, from, last_page, per_page, to, total},
//	 "links": {first, last, prev, next}}
//
// from and to are null on an empty page; prev and next are null at the
// ends. Links are absolute.
type Page[T any] struct {
	Data  []T       `json:"data"`
	Meta  PageMeta  `json:"meta"`
	Links PageLinks `json:"links"`
}

// PageMeta is the meta block of [Page].
type PageMeta struct {
	CurrentPage int  `json:"current_page"`
	From        *int `json:"from"`
	LastPage    int  `json:"last_page"`
	PerPage     int  `json:"per_page"`
	To          *int `json:"to"`
	Total       int  `json:"total"`
}

// PageLinks is the links block of [Page].
type PageLinks struct {
	First string  `json:"first"`
	Last  string  `json:"last"`
	Prev  *string `json:"prev"`
	Next  *string `json:"next"`
}

// NewPage builds the envelope for items, the rows of page p out of total.
// Links keep the request's other query parameters; base is the absolute
// URL of the list (see [AbsoluteURL]).
func NewPage[T any](items []T, p PageRequest, total int, base *url.URL) Page[T] {
	if items == nil {
		items = []T{}
	}
	last := max(1, (total+p.PerPage-1)/p.PerPage)
	meta := PageMeta{CurrentPage: p.Page, LastPage: last, PerPage: p.PerPage, Total: total}
	if len(items) > 0 {
		from, to := p.Offset()+1, p.Offset()+len(items)
		meta.From, meta.To = &from, &to
	}
	link := func(n int) string {
		u := *base
		q := u.Query()
		q.Set("page", strconv.Itoa(n))
		u.RawQuery = q.Encode()
		return u.String()
	}
	links := PageLinks{First: link(1), Last: link(last)}
	if p.Page > 1 {
		prev := link(min(p.Page-1, last))
		links.Prev = &prev
	}
	if p.Page < last {
		next := link(p.Page + 1)
		links.Next = &next
	}
	return Page[T]{Data: items, Meta: meta, Links: links}
}

// AbsoluteURL is the request's URL made absolute: on baseURL when the host
// configured one (its scheme, host and path prefix), else on the request's
// own scheme and Host.
func AbsoluteURL(r *http.Request, baseURL *url.URL) *url.URL {
	u := *r.URL
	if baseURL != nil {
		u.Scheme, u.Host = baseURL.Scheme, baseURL.Host
		u.Path = strings.TrimSuffix(baseURL.Path, "/") + r.URL.Path
		u.RawPath = ""
		return &u
	}
	u.Scheme = "http"
	if r.TLS != nil {
		u.Scheme = "https"
	}
	u.Host = r.Host
	return &u
}
