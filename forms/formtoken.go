package forms

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// Form-load tokens: a form is shown with a token naming the form and the
// time it was issued, signed with the service's key. A submission without
// a good token, or one sent back sooner after it was issued than its form's
// MinFillSeconds,
// or a second time, is spam. The token replaces trust in
// _form_loaded_at, which a client may leave out or forge.
const (
	// FormTokenField carries the form-load token: the render
	// definition's config.form_token, a hidden input of the page.
	FormTokenField = "_form_token"
	// FormTokenMaxAgeDefault is how long a form-load token is good.
	FormTokenMaxAgeDefault = 24 * time.Hour
	// formTokenKeyMinBytes is the shortest Options.FormTokenKey taken.
	formTokenKeyMinBytes = 32
)

// Why a submission's form-load token makes it spam; "" when it does not.
const (
	tokenMissing   = "missing"
	tokenMalformed = "malformed"
	tokenForged    = "forged"
	tokenOtherForm = "for another form"
	tokenExpired   = "expired"
	tokenTooFresh  = "sent too soon after the form was shown"
	tokenReplayed  = "used before"
)

const (
	tokenNonceBytes = 12
	tokenMACBytes   = 16
	tokenMaxLen     = 128
	tokenContext    = "groundwork forms: form-load token v1\x00"
)

// FormToken issues a form-load token for the form with this id, to be
// sent back in the FormTokenField input. The render definition and the
// page carry one; a host that draws its own form puts this in a hidden
// input.
func (s *Service) FormToken(formID int64) string {
	var nonce [tokenNonceBytes]byte
	_, _ = rand.Read(nonce[:])
	payload := strconv.FormatInt(formID, 10) + "." + strconv.FormatInt(s.now().Unix(), 10) + "." +
		base64.RawURLEncoding.EncodeToString(nonce[:])
	return payload + "." + base64.RawURLEncoding.EncodeToString(s.tokenMAC(payload))
}

func (s *Service) tokenMAC(payload string) []byte { return s.mac(tokenContext, payload) }

// mac signs payload for one use of the service's key, named by its
// context.
func (s *Service) mac(context, payload string) []byte {
	m := hmac.New(sha256.New, s.tokenKey)
	m.Write([]byte(context))
	m.Write([]byte(payload))
	return m.Sum(nil)[:tokenMACBytes]
}

// parseToken checks a token's shape, signature, form and age, and returns
// its nonce and the time it was issued, or why it is no good (too fresh
// when younger than minFill).
func (s *Service) parseToken(formID int64, token string, now time.Time, minFill time.Duration) (nonce string, issued time.Time, reason string) {
	if token == "" {
		return "", time.Time{}, tokenMissing
	}
	parts := strings.Split(token, ".")
	if len(token) > tokenMaxLen || len(parts) != 4 {
		return "", time.Time{}, tokenMalformed
	}
	id, errID := strconv.ParseInt(parts[0], 10, 64)
	secs, errTime := strconv.ParseInt(parts[1], 10, 64)
	mac, errMAC := base64.RawURLEncoding.DecodeString(parts[3])
	if errID != nil || errTime != nil || errMAC != nil || len(parts[2]) == 0 {
		return "", time.Time{}, tokenMalformed
	}
	if !hmac.Equal(mac, s.tokenMAC(parts[0]+"."+parts[1]+"."+parts[2])) {
		return "", time.Time{}, tokenForged
	}
	issued = time.Unix(secs, 0)
	switch {
	case id != formID:
		return "", issued, tokenOtherForm
	case now.Sub(issued) > s.tokenMaxAge:
		return "", issued, tokenExpired
	case now.Sub(issued) < minFill:
		return "", issued, tokenTooFresh
	}
	return parts[2], issued, ""
}

// pageToken is the token a redrawn page carries: the one it was sent
// with, while that is still good for the form (so the time to fill it in
// counts from when it was first shown), else a new one.
func (s *Service) pageToken(formID int64, sent string) string {
	if _, _, reason := s.parseToken(formID, sent, s.now(), 0); reason == "" || reason == tokenTooFresh {
		return sent
	}
	return s.FormToken(formID)
}

// tokenVerdict says why req's form-load token makes the submission spam
// ("" when it does not), judged against form as it is now, and uses the
// token up when it is good. The use is counted once per req, so a
// submission tried again (its form changed meanwhile) does not see its
// own use as a replay.
func (s *Service) tokenVerdict(ctx context.Context, form *Form, req *SubmitRequest, now time.Time) string {
	if req.FormToken == "" && s.tokenOptional {
		if tooFast(req.LoadedAt, now, minFill(form)) {
			return tokenTooFresh
		}
		return ""
	}
	nonce, issued, reason := s.parseToken(form.ID, req.FormToken, now, minFill(form))
	if reason != "" {
		return reason
	}
	if !req.tokenCounted {
		req.tokenCounted = true
		// Good once: the token's first use opens a window as long as it
		// could still be good, and any other use inside it is a replay.
		window := s.tokenMaxAge - now.Sub(issued) + time.Second
		res, err := s.tokenUses.Hit(ctx, "forms-token:"+nonce, 1, window)
		switch {
		case err != nil:
			// Judged on the rest: a person is not marked a spammer
			// because the counter could not be reached.
			s.logger.ErrorContext(ctx, "forms: form-load token use not counted", "form", form.ID, "error", err)
		case !res.Allowed:
			req.tokenReplayed = true
		}
	}
	if req.tokenReplayed {
		return tokenReplayed
	}
	return ""
}
