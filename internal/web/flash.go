package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Flash is a message shown once, on the page a redirect leads to.
type Flash struct {
	// Kind is "success", "info" or "error" (announced as an alert).
	Kind    string
	Message string
}

// Flash cookie settings.
const (
	flashCookie = "gw_flash"
	// FlashLifetime is how long a flash waits for the page it is for.
	FlashLifetime = 5 * time.Minute
)

func randomKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}

// SetFlash keeps f for the next page under path (the path the redirect
// leads to), in a signed cookie: HttpOnly, SameSite=Lax, Secure over TLS.
func (r *Renderer) SetFlash(w http.ResponseWriter, req *http.Request, path string, f Flash) {
	expires := time.Now().Add(FlashLifetime).Unix()
	payload := strings.Join([]string{strconv.FormatInt(expires, 10), path, f.Kind, f.Message}, "\x00")
	value := base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(r.sign(payload))
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: value, Path: path, MaxAge: int(FlashLifetime / time.Second),
		HttpOnly: true, Secure: req.TLS != nil, SameSite: http.SameSiteLaxMode})
}

// TakeFlash returns the flash kept for path, and forgets it; nil when
// there is none, or it is forged, expired or for another path.
//
// A page drawn for a frame takes it from its address instead (SeeOther
// put it there), as a third party's cookies may not come back.
func (r *Renderer) TakeFlash(w http.ResponseWriter, req *http.Request, path string) *Flash {
	var value string
	if r.frameOf(req) != "" {
		value = req.URL.Query().Get(flashQuery)
	} else if c, err := req.Cookie(flashCookie); err == nil {
		value = c.Value
		http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: path, MaxAge: -1,
			HttpOnly: true, Secure: req.TLS != nil, SameSite: http.SameSiteLaxMode})
	}
	if value == "" {
		return nil
	}
	data, sig, ok := strings.Cut(value, ".")
	if !ok {
		return nil
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(data)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, r.sign(string(payload))) {
		return nil
	}
	parts := strings.SplitN(string(payload), "\x00", 4)
	if len(parts) != 4 || parts[1] != path {
		return nil
	}
	expires, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || time.Now().Unix() > expires {
		return nil
	}
	return &Flash{Kind: parts[2], Message: parts[3]}
}

func (r *Renderer) sign(payload string) []byte {
	m := hmac.New(sha256.New, r.key)
	m.Write([]byte("groundwork flash\x00"))
	m.Write([]byte(payload))
	return m.Sum(nil)
}
