package groundwork

import "net/http"

// Paging of the list endpoints and of the services' list methods.
const (
	// PerPageDefault is the page size of a list that names none.
	PerPageDefault = 15
	// PerPageMax is the largest page size a list endpoint accepts.
	PerPageMax = 100
)

// APILimitDefault is the "api" throttle's allowance: requests a minute per
// caller (a bearer token, else a client IP) of the handlers that have one.
const APILimitDefault = 60

// PageRequest asks a list for one page: Page counts from 1, PerPage rows
// each.
type PageRequest struct {
	Page    int
	PerPage int
}

// Offset is the number of rows before the page.
func (p PageRequest) Offset() int { return (p.Page - 1) * p.PerPage }

// Brand is how the host's pages name the site: every page's header shows
// it (linking HomeURL), its footer repeats it, and titles end with it.
// The zero value shows no name.
type Brand struct {
	// Name is the product or site name ("Acme Studio").
	Name string
	// LogoURL is an image shown before the name, on the site's own
	// origin (the pages' Content-Security-Policy allows no other); the
	// name stays as its text, so the image is decorative.
	LogoURL string
	// HomeURL is where the name links; "/" when empty.
	HomeURL string
}

// NavLink is one link of the signed-in user's navigation.
type NavLink struct {
	// Text is the link's words; URL a path on the site.
	Text, URL string
	// Capability, when set, shows the link only to users who have it.
	Capability string
}

// Navigation is what a page's header shows of whoever is signed in: their
// name, their links (the one for the page shown is marked current), and
// a sign-out button posting to SignOutURL.
type Navigation struct {
	Name       string
	Links      []NavLink
	SignOutURL string
}

// Navigator finds the signed-in user of a request for the header of every
// page, including the public ones (a form, a booking page) and error
// pages; nil for a guest. auth.Web is one.
type Navigator interface {
	Navigation(r *http.Request) *Navigation
}

// NavigatorFunc adapts a function to [Navigator].
type NavigatorFunc func(r *http.Request) *Navigation

// Navigation calls f.
func (f NavigatorFunc) Navigation(r *http.Request) *Navigation { return f(r) }
