package reporting

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork/internal/passhash"
	"github.com/groundwork-go/groundwork/internal/proxies"
	"github.com/groundwork-go/groundwork/internal/throttle"
	"github.com/groundwork-go/groundwork/internal/web"
	"github.com/groundwork-go/groundwork/store/driverless"
	"github.com/groundwork-go/groundwork/tenant"
)

// Shared links: a read-only dashboard behind a random token.
const (
	// SharedPathDefault is where the shared dashboards are served:
	// {SharedPath}/{token}.
	SharedPathDefault = "/reporting/shared"
	// SharedLimitDefault is the shared pages a minute one address may
	// ask for (each is a report); SharedPasswordLimit the passwords it
	// may try a minute on one link.
	SharedLimitDefault  = 60
	SharedPasswordLimit = 5
	// SharedLinkPasswordLimit is the passwords one link may be tried
	// with a minute from every address together, so guesses spread over
	// many addresses are held too.
	SharedLinkPasswordLimit = 20
	// SharedUnlockedFor is how long a right password opens a link in
	// that browser.
	SharedUnlockedFor = 24 * time.Hour
	// MaxSharedLinks is how many links (revoked ones too) a site keeps.
	MaxSharedLinks = 100
)

// SharedLink is a read-only link to the dashboard: its token is shown
// once, when it is made (only its hash is kept), and it may ask for a
// password. A revoked link opens nothing.
type SharedLink struct {
	ID          int64      `json:"id"`
	Name        string     `json:"name"`
	HasPassword bool       `json:"has_password"`
	CreatedAt   time.Time  `json:"created_at"`
	RevokedAt   *time.Time `json:"revoked_at"`
	// Site is the site whose reports the link shows (the tenant of the
	// context it was made in).
	Site string `json:"-"`
}

// NewSharedLink is a link as made: the link, and its path with the token
// (to give whoever may read the reports; not shown again).
type NewSharedLink struct {
	SharedLink
	Token string `json:"token"`
	Path  string `json:"path"`
}

// ErrSharedLinkNotFound is a shared link that is not there.
var ErrSharedLinkNotFound = errors.New("reporting: no such shared link")

// ErrBadSharedLink wraps what is wrong with a new shared link.
var ErrBadSharedLink = errors.New("reporting: bad shared link")

// SharedLinkStore keeps the shared links (reportingsql's Store).
type SharedLinkStore interface {
	// SharedLinks are the links, newest first.
	SharedLinks(ctx context.Context) ([]SharedLink, error)
	// CreateSharedLink keeps a link by its token's hash, with the PHC hash
	// of its password ("" for none); ErrBadSharedLink past MaxSharedLinks.
	CreateSharedLink(ctx context.Context, l SharedLink, tokenHash []byte, passwordHash string) (SharedLink, error)
	// SharedLinkByToken is the link with that token hash and its password
	// hash; ErrSharedLinkNotFound when there is none.
	SharedLinkByToken(ctx context.Context, tokenHash []byte) (SharedLink, string, error)
	// RevokeSharedLink stops a link working; ErrSharedLinkNotFound when
	// there is none.
	RevokeSharedLink(ctx context.Context, id int64) error
}

// sharedPasswordParams are the costs of a link's password hash (those of
// sign-in passwords).
var sharedPasswordParams = passhash.Params{Memory: 19 * 1024, Time: 2, Threads: 1}

// MakeSharedLink makes a link named name (a password of 8 to 1024 bytes,
// or none) in st and returns it with its token, under sharedPath
// (SharedPathDefault when "").
func MakeSharedLink(ctx context.Context, st SharedLinkStore, name, password, sharedPath string) (NewSharedLink, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return NewSharedLink{}, fmt.Errorf("%w: name: give the link a name (who it is for)", ErrBadSharedLink)
	case utf8.RuneCountInString(name) > 120 || strings.ContainsFunc(name, unicode.IsControl):
		return NewSharedLink{}, fmt.Errorf("%w: name: at most 120 characters, no control characters", ErrBadSharedLink)
	case password != "" && (len(password) < 8 || len(password) > 1024):
		return NewSharedLink{}, fmt.Errorf("%w: password: 8 to 1024 bytes, or none", ErrBadSharedLink)
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return NewSharedLink{}, err
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	var hash string
	if password != "" {
		var err error
		if hash, err = passhash.Hash(password, sharedPasswordParams); err != nil {
			return NewSharedLink{}, err
		}
	}
	l, err := st.CreateSharedLink(ctx, SharedLink{Name: name, HasPassword: hash != "", CreatedAt: time.Now().UTC().Truncate(time.Second)},
		tokenHash(token), hash)
	if err != nil {
		return NewSharedLink{}, err
	}
	if sharedPath == "" {
		sharedPath = SharedPathDefault
	}
	return NewSharedLink{SharedLink: l, Token: token, Path: sharedPath + "/" + token}, nil
}

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte("groundwork shared link\x00" + token))
	return h[:]
}

// unlockCookie names the cookie that holds a link's unlocking.
func unlockCookie(id int64) string { return "gw_shared_" + strconv.FormatInt(id, 10) }

// unlockValue is the cookie that opens link id until expires: the time
// and its MAC, keyed by the link's password hash (so a new password or a
// revoked link closes it; the hash never leaves the server).
func unlockValue(id int64, passwordHash string, expires time.Time) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	m := hmac.New(sha256.New, []byte(passwordHash))
	m.Write([]byte(strconv.FormatInt(id, 10) + "\x00" + exp))
	return exp + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// unlocked reports whether r carries a live unlocking of link id.
func unlocked(r *http.Request, id int64, passwordHash string, now time.Time) bool {
	c, err := r.Cookie(unlockCookie(id))
	if err != nil {
		return false
	}
	exp, _, ok := strings.Cut(c.Value, ".")
	n, err := strconv.ParseInt(exp, 10, 64)
	if !ok || err != nil || now.Unix() > n {
		return false
	}
	return hmac.Equal([]byte(c.Value), []byte(unlockValue(id, passwordHash, time.Unix(n, 0))))
}

// sharedPasswordPage is the form a link with a password shows first.
type sharedPasswordPage struct {
	Action, Name string
	Password     web.Field
	Summary      []web.SummaryItem
}

// SharedPasswordTemplate is the password form of a shared link, by the
// name DashboardOptions.Templates may replace it under.
const SharedPasswordTemplate = "reporting/shared-password.html"

// shared serves GET and POST {SharedPath}/{token}: the read-only
// dashboard, behind the link's password when it has one.
func (d *Dashboard) shared(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	path := d.o.SharedPath + "/" + token
	ip := proxies.ClientIPString(r, d.o.TrustedProxies)
	w.Header().Set("X-Robots-Tag", "noindex")
	back := web.ErrorPage{Link: path, LinkText: "Back to the reports"}
	if d.sharedLimit != nil {
		if err := web.Hit(w, r, d.sharedLimit, "shared "+ip, back); err != nil {
			return err
		}
	}
	l, hash, err := d.o.SharedLinks.SharedLinkByToken(r.Context(), tokenHash(token))
	if errors.Is(err, ErrSharedLinkNotFound) || err == nil && l.RevokedAt != nil {
		return &web.Problem{Status: http.StatusNotFound, ErrorPage: web.ErrorPage{Heading: "This link does not open any reports",
			Message: "It may have been mistyped, or withdrawn by whoever shared it. Ask them for a new one."}}
	}
	if err != nil {
		return err
	}
	now := time.Now()
	if hash != "" && !unlocked(r, l.ID, hash, now) {
		data := &sharedPasswordPage{Action: path, Name: l.Name, Password: web.Field{Type: "password", ID: "f-password", Name: "password",
			Label: "Password", Required: true, Autocomplete: "current-password"}}
		status := http.StatusUnauthorized
		if r.Method == http.MethodPost {
			if d.passwordLimit != nil {
				id := strconv.FormatInt(l.ID, 10)
				if err := web.Hit(w, r, d.passwordLimit, "shared password "+id+" "+ip, back); err != nil {
					return err
				}
				if err := web.Hit(w, r, d.linkPasswordLimit, "shared password "+id, back); err != nil {
					return err
				}
			}
			password := r.PostFormValue("password")
			ok := false
			if password != "" && len(password) <= 1024 {
				ok, _, err = passhash.Check(hash, password, sharedPasswordParams)
				if err != nil {
					return err
				}
			}
			if ok {
				expires := now.Add(SharedUnlockedFor)
				http.SetCookie(w, &http.Cookie{Name: unlockCookie(l.ID), Value: unlockValue(l.ID, hash, expires), Path: path,
					Expires: expires, HttpOnly: true, Secure: proxies.ViaTLS(r, d.o.TrustedProxies), SameSite: http.SameSiteLaxMode})
				http.Redirect(w, r, path, http.StatusSeeOther)
				return nil
			}
			msg := "Enter the password you were given with the link."
			if password != "" {
				msg = "That password does not open these reports. Check it and try again."
			}
			data.Password.Errors = []string{msg}
			data.Summary = web.Summary([]web.Field{data.Password})
			status = http.StatusUnprocessableEntity
		}
		d.sharedBase.Render.Render(w, r, status, SharedPasswordTemplate, &web.Page{Title: "Reports shared with you", Data: data, CSRF: web.CSRFToken(w, r)})
		return nil
	}
	if r.Method != http.MethodGet {
		http.Redirect(w, r, path, http.StatusSeeOther)
		return nil
	}
	r = r.WithContext(tenant.With(r.Context(), l.Site)) // the link shows its own site's reports
	p := &dashboardPage{Path: path, SharedName: l.Name}
	q := pickRange(r, p)
	d.nameGoals(r.Context(), p)
	if e := r.URL.Query().Get("export"); e != "" {
		return d.export(w, r, e, q)
	}
	if d.svc.o.Analytics != nil {
		p.Traffic = d.trafficSection(r.Context(), p, q)
	}
	w.Header().Set("Cache-Control", "private, no-store")
	d.sharedBase.Render.Render(w, r, http.StatusOK, DashboardTemplate, &web.Page{Title: "Reports", Data: p, Wide: true})
	return nil
}

// sharedPages serves the pages shared by link under SharedPath, with
// their throttles: a base of their own (bo with the shared path), with
// the assets beside them, for their readers cannot sign in to reach the
// dashboard's, and their error pages are styled too.
func (d *Dashboard) sharedPages(bo web.BaseOptions) error {
	o := &d.o
	if o.SharedPath == "" {
		o.SharedPath = SharedPathDefault
	}
	o.SharedPath = strings.TrimSuffix(o.SharedPath, "/")
	if o.RateLimiter == nil {
		o.RateLimiter = driverless.NewMemoryRateLimiter(nil)
	}
	if o.SharedLimit >= 0 {
		limit := func(name string, n int) *throttle.Throttle {
			return &throttle.Throttle{Name: name, Limiter: o.RateLimiter, Limit: n, Window: time.Minute, TrustedProxies: o.TrustedProxies, Logger: o.Logger}
		}
		d.sharedLimit = limit("reporting shared", cmp.Or(o.SharedLimit, SharedLimitDefault))
		d.passwordLimit = limit("reporting shared password", SharedPasswordLimit)
		d.linkPasswordLimit = limit("reporting shared link password", SharedLinkPasswordLimit)
	}
	bo.Prefix, bo.Default, bo.AssetPrefix = o.SharedPath, o.SharedPath, ""
	bo.NotFound = web.ErrorPage{Heading: "Link not found", Message: "This link to the reports does not open anything: it may have been revoked, " +
		"or copied only in part. Ask whoever gave it to you for a new one."}
	base, err := web.NewBase(bo)
	if err != nil {
		return err
	}
	d.sharedBase = base
	base.Mux.HandleFunc("GET "+o.SharedPath+"/{token}", base.Func(d.shared))
	base.Mux.HandleFunc("POST "+o.SharedPath+"/{token}", base.Func(d.shared))
	return nil
}
