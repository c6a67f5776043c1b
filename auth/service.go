package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/seal"
	"github.com/groundwork-go/groundwork/mail"
	"github.com/groundwork-go/groundwork/tenant"
)

// Token format and defaults.
const (
	// SecretPrefix starts every secret, so that secret scanners and
	// people can tell a groundwork token at sight.
	SecretPrefix = "gw_"
	// SecretLength is the number of random characters after the prefix,
	// each one of 62: about 238 bits.
	SecretLength = 40
	// TouchIntervalDefault is how stale LastUsedAt may grow before a use
	// writes it again; it saves a write per request.
	TouchIntervalDefault = time.Minute
	// NameMaxLength caps a token's name, in characters.
	NameMaxLength = 255
)

// Options configures [NewService]. Nil means the defaults.
type Options struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Meter counts sign-in attempts by outcome (groundwork.MetricSignIns); nil counts nothing.
	Meter groundwork.Meter
	// Rand is the source of secrets; crypto/rand when nil.
	Rand io.Reader
	// Abilities are a host's own abilities (the names its own routes
	// check) that a token may carry beside groundwork.Abilities; any
	// other name is refused when a token is made.
	Abilities []string
	// TouchInterval: TouchIntervalDefault when zero. It also spaces the
	// writes of a session's last-seen time.
	TouchInterval time.Duration

	// Password is argon2id's cost; zero fields take the defaults
	// (PasswordMemoryDefault, PasswordTimeDefault, PasswordThreadsDefault).
	Password PasswordParams
	// PasswordConcurrency bounds how many passwords are hashed at once;
	// half the CPUs (at least one) when zero, so a flood of sign-ins
	// leaves the other half to everything else.
	PasswordConcurrency int
	// PasswordWait is how long a sign-in waits for its turn to hash
	// before it gives up with ErrBusy; PasswordWaitDefault when zero.
	PasswordWait time.Duration
	// Key signs email-verification links. Give every instance the same
	// key (32 random bytes); a key of this process alone when nil, and
	// then links sent before a restart stop working.
	Key []byte
	// LoginLimiter counts failed sign-ins per email and client IP. Give a
	// store.SQLRateLimiter so the lock-out holds across instances; in
	// memory when nil.
	LoginLimiter groundwork.RateLimitResetter
	// LoginAttempts is how many sign-ins a window allows before the
	// lock-out (LoginAttemptsDefault when zero), LoginWindow the window
	// (LoginWindowDefault).
	LoginAttempts int
	LoginWindow   time.Duration
	// Lifetimes; each is its ...Default when zero.
	SessionIdle      time.Duration
	SessionLifetime  time.Duration
	RememberLifetime time.Duration
	ConfirmLifetime  time.Duration
	ResetLifetime    time.Duration
	VerifyLifetime   time.Duration
	// Mailer sends the reset and verification mails; without one they
	// are not sent (and the forgot-password page still says they are on
	// their way, so that it tells nobody whether an account exists).
	Mailer mail.Mailer
	// Enqueuer queues each mail as a job (a *store.Queue, with
	// [RegisterWorkers]), tried again with mail.RetryDelay between tries
	// until it goes, so a mail server away for hours loses none; the
	// message is sealed with Key in the job's row (it holds a reset
	// link), so every instance needs the same Key (a process's own key
	// leaves a queued mail unreadable after a restart). Without one a
	// mail is sent once, in the background, and a failure is only
	// logged.
	Enqueuer Enqueuer
	// MailFrom is the sender of those mails; the mailer's default when
	// empty.
	MailFrom string
	// AppName names the site in mails; "groundwork" when empty.
	AppName string
	// Logger receives failures to send mail; nil discards.
	Logger *slog.Logger
}

// Service issues and checks API tokens, and keeps users, their sessions
// and their passwords. It satisfies the TokenVerifier interface of every
// groundwork domain. Safe for concurrent use.
type Service struct {
	store         Store
	now           func() time.Time
	rand          io.Reader
	touchInterval time.Duration
	hasher        *hasher
	key           []byte
	secrets       *seal.Sealer // seals two-factor secrets
	logins        groundwork.RateLimitResetter
	life          lifetimes
	loginAttempts int
	loginWindow   time.Duration
	mailer        mail.Mailer
	enqueuer      Enqueuer
	mailFrom      string
	appName       string
	logger        *slog.Logger
	hooks         registered
	meter         groundwork.Meter
	// abilities are the host's own (Options.Abilities).
	abilities []string
}

// NewService returns a token service on store.
func NewService(store Store, opts *Options) (*Service, error) {
	if store == nil {
		return nil, errors.New("auth: new service: store is nil")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TouchInterval < 0 {
		return nil, errors.New("auth: new service: negative touch interval")
	}
	s := &Service{store: store, now: o.Now, rand: o.Rand, touchInterval: o.TouchInterval, meter: o.Meter, abilities: slices.Clone(o.Abilities),
		enqueuer: o.Enqueuer}
	if s.now == nil {
		s.now = time.Now
	}
	if s.rand == nil {
		s.rand = rand.Reader
	}
	if s.touchInterval == 0 {
		s.touchInterval = TouchIntervalDefault
	}
	if err := s.initUsers(o); err != nil {
		return nil, fmt.Errorf("auth: new service: %w", err)
	}
	return s, nil
}

var abilityPattern = regexp.MustCompile(`^(\*|[A-Za-z0-9_-]+([:.][A-Za-z0-9_-]+)*([:.]\*)?)$`)

// ValidAbility reports whether s is a well-formed ability: "*", or words
// of letters, digits, '_' and '-' joined by ':' or '.', optionally ending
// in ":*" or ".*".
func ValidAbility(s string) bool { return abilityPattern.MatchString(s) }

// CreateToken issues a token. It returns the plaintext, "<id>|gw_<secret>",
// which is shown this once and never stored, and the token as stored. A
// bad input is a *ValidationError. Made under a tenant (ctx acts for one:
// see package tenant), the token is bound to it (tenant.AbilityPrefix).
func (s *Service) CreateToken(ctx context.Context, nt NewToken) (string, Token, error) {
	now := s.now()
	v := &api.Validator{}
	name := strings.TrimSpace(nt.Name)
	switch {
	case name == "":
		v.Add("name", api.MsgRequired("name"))
	case utf8.RuneCountInString(name) > NameMaxLength:
		v.Add("name", api.MsgMaxChars("name", NameMaxLength))
	}
	if len(nt.Abilities) == 0 {
		v.Add("abilities", api.MsgRequired("abilities"))
	}
	for i, a := range nt.Abilities {
		field := "abilities." + strconv.Itoa(i)
		switch {
		case !ValidAbility(a):
			v.Add(field, api.MsgFormat(field))
		case !groundwork.KnownAbility(a, s.abilities...):
			// A token no route would ever let through: say what was meant.
			hint := "A host's own abilities go in auth.Options.Abilities"
			if near := groundwork.NearestAbility(a, s.abilities...); near != "" {
				hint = fmt.Sprintf("did you mean %q? ", near) + hint
			}
			v.Add(field, fmt.Sprintf("The %s field names no ability: %q (%s).", api.Attr(field), a, hint))
		}
	}
	if !nt.ExpiresAt.IsZero() && !nt.ExpiresAt.After(now) {
		v.Add("expires_at", "The expires at field must be a date in the future.")
	}
	if err := v.Err(); err != nil {
		return "", Token{}, err
	}
	secret, err := s.newSecret()
	if err != nil {
		return "", Token{}, fmt.Errorf("auth: create token: %w", err)
	}
	abilities := nt.Abilities
	if key, ok := tenant.Of(ctx); ok {
		// Made under a tenant, the token acts for it alone (a tenant
		// ability no request may grant itself: it is no known ability).
		abilities = append(slices.Clone(abilities), tenant.AbilityPrefix+key)
	}
	t := Token{Name: name, Abilities: dedupe(abilities), CreatedAt: now.UTC().Truncate(time.Microsecond)}
	if nt.UserID != 0 {
		id := nt.UserID
		t.UserID = &id
	}
	if !nt.ExpiresAt.IsZero() {
		exp := nt.ExpiresAt.UTC().Truncate(time.Microsecond)
		t.ExpiresAt = &exp
	}
	hash := sha256.Sum256([]byte(secret))
	t, err = s.store.CreateToken(ctx, t, hash[:])
	if err != nil {
		return "", Token{}, fmt.Errorf("auth: create token: %w", err)
	}
	for _, h := range s.hooks.tokenCreated.All() {
		h(ctx, t)
	}
	return strconv.FormatInt(t.ID, 10) + "|" + secret, t, nil
}

// CreateUserToken issues a token that belongs to u, whose abilities may
// not exceed u's capabilities (an ability they do not cover is a
// *ValidationError on "abilities.N"). A user bound by a binding ability
// (groundwork.BindingAbilities: "webhookOwner:acct_a") makes tokens
// bound the same way, whatever was asked: a token never reaches further
// than its maker.
func (s *Service) CreateUserToken(ctx context.Context, u User, nt NewToken) (string, Token, error) {
	v := &api.Validator{}
	for i, a := range nt.Abilities {
		if ValidAbility(a) && !covers(u.Capabilities, a) {
			v.Add("abilities."+strconv.Itoa(i), "The abilities."+strconv.Itoa(i)+" field names an ability your account does not have.")
		}
	}
	if err := v.Err(); err != nil {
		return "", Token{}, err
	}
	for _, c := range u.Capabilities {
		if isBinding(c) && !slices.Contains(nt.Abilities, c) {
			nt.Abilities = append(slices.Clip(nt.Abilities), c)
		}
	}
	nt.UserID = u.ID
	return s.CreateToken(ctx, nt)
}

// covers reports whether granted covers every ability that requested
// (which may itself end in a wildcard) names.
func covers(granted []string, requested string) bool {
	if requested == "*" {
		return slices.Contains(granted, "*")
	}
	if base, ok := strings.CutSuffix(requested, "*"); ok {
		// "forms:*" is covered by "*", "forms:*", or a wider wildcard.
		return groundwork.Can(granted, base+"\x00any")
	}
	return groundwork.Can(granted, requested)
}

func dedupe(xs []string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// newSecret draws SecretLength characters uniformly from alphabet,
// rejecting bytes that would bias the choice.
func (s *Service) newSecret() (string, error) {
	const limit = 256 - 256%len(alphabet) // 248
	out := make([]byte, 0, len(SecretPrefix)+SecretLength)
	out = append(out, SecretPrefix...)
	buf := make([]byte, SecretLength*2)
	for len(out) < cap(out) {
		if _, err := io.ReadFull(s.rand, buf); err != nil {
			return "", err
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < cap(out) {
				out = append(out, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	return string(out), nil
}

// parse splits "<id>|<secret>" and checks the secret's shape.
func parse(plaintext string) (int64, string, bool) {
	idText, secret, ok := strings.Cut(plaintext, "|")
	if !ok || len(idText) == 0 || len(idText) > 19 || idText[0] == '0' {
		return 0, "", false
	}
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		return 0, "", false
	}
	if len(secret) != len(SecretPrefix)+SecretLength || !strings.HasPrefix(secret, SecretPrefix) {
		return 0, "", false
	}
	for i := len(SecretPrefix); i < len(secret); i++ {
		if !strings.ContainsRune(alphabet, rune(secret[i])) {
			return 0, "", false
		}
	}
	return id, secret, true
}

// Authenticate returns the live token plaintext names, recording the use.
// A malformed, unknown, revoked or expired token is ErrInvalidToken; any
// other error means the check itself failed.
func (s *Service) Authenticate(ctx context.Context, plaintext string) (Token, error) {
	id, secret, ok := parse(plaintext)
	if !ok {
		return Token{}, ErrInvalidToken
	}
	t, hash, err := s.store.TokenByID(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Token{}, ErrInvalidToken
	}
	if err != nil {
		return Token{}, fmt.Errorf("auth: authenticate: %w", err)
	}
	got := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(got[:], hash) != 1 {
		return Token{}, ErrInvalidToken
	}
	// To the microsecond, as stored, so the answer matches a later read.
	now := s.now().UTC().Truncate(time.Microsecond)
	if !t.Active(now) {
		return Token{}, ErrInvalidToken
	}
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= s.touchInterval {
		if err := s.store.TouchToken(ctx, t.ID, now); err != nil {
			return Token{}, fmt.Errorf("auth: authenticate: %w", err)
		}
		t.LastUsedAt = &now
	}
	return t, nil
}

// callerID is the key that names a token's caller in rate limits and
// logs: "user:<id>" for a token that belongs to a user (so the "api"
// throttle counts all of a user's tokens together, as Sanctum keys it by
// the owner), else "token:<id>".
func callerID(t Token) string {
	if t.UserID != nil {
		return "user:" + strconv.FormatInt(*t.UserID, 10)
	}
	return "token:" + strconv.FormatInt(t.ID, 10)
}

// VerifyToken implements the domains' TokenVerifier: the caller key and
// abilities of a live token; an empty caller and nil error for a token
// that does not authenticate (a disabled user's too). A token that
// belongs to a user carries, at
// each request, only what both it and the user's capabilities cover: a
// capability taken from the user is taken from their tokens at once, and
// the tokens of a user who is gone stop working. Under Web.LoadUser, a
// request's token is read once: asked again in the same request (a
// tenancy middleware, then the route), the first answer is given.
func (s *Service) VerifyToken(ctx context.Context, plaintext string) (string, []string, error) {
	memo, _ := ctx.Value(tokenMemoKey{}).(*tokenMemo) // under LoadUser: asked again, answered from it
	if memo != nil {
		if m := memo.Load(); m != nil && m.plaintext == plaintext {
			return m.caller, slices.Clone(m.abilities), nil
		}
	}
	caller, abilities, err := s.verifyToken(ctx, plaintext)
	if err == nil && memo != nil {
		memo.Store(&verifiedToken{plaintext: plaintext, caller: caller, abilities: slices.Clone(abilities)})
	}
	return caller, abilities, err
}

// tokenMemo keeps the bearer token a request verified and what
// VerifyToken answered, so a request's token is read once however many
// ask (a tenancy middleware, then the route): LoadUser puts one in each
// request's context.
type tokenMemo = atomic.Pointer[verifiedToken]

type tokenMemoKey struct{}

// verifiedToken is a token VerifyToken answered for.
type verifiedToken struct {
	plaintext, caller string
	abilities         []string
}

// withTokenMemo is ctx with a fresh tokenMemo.
func withTokenMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, tokenMemoKey{}, new(tokenMemo))
}

// verifyToken is VerifyToken, read from the store.
func (s *Service) verifyToken(ctx context.Context, plaintext string) (string, []string, error) {
	t, err := s.Authenticate(ctx, plaintext)
	if errors.Is(err, ErrInvalidToken) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	abilities := t.Abilities
	if t.UserID != nil {
		u, _, err := s.store.UserByID(ctx, *t.UserID)
		if errors.Is(err, ErrNotFound) || err == nil && u.DisabledAt != nil {
			return "", nil, nil
		}
		if err != nil {
			return "", nil, fmt.Errorf("auth: verify token: %w", err)
		}
		abilities = withBindings(intersect(t.Abilities, u.Capabilities), t.Abilities, u.Capabilities)
	}
	return callerID(t), abilities, nil
}

// isBinding reports whether a names a binding (groundwork.BindingAbilities:
// "webhookOwner:acct_a"), which narrows what the other abilities reach.
func isBinding(a string) bool {
	return slices.ContainsFunc(groundwork.BindingAbilities, func(b groundwork.Ability) bool { return strings.HasPrefix(a, b.Name) })
}

// withBindings is a user's token's abilities bound as its user is: the
// user's bindings when they have any (a token never reaches further than
// its maker), else the token's own.
func withBindings(abilities, token, user []string) []string {
	keep := slices.DeleteFunc(slices.Clone(user), func(a string) bool { return !isBinding(a) })
	if len(keep) == 0 {
		keep = slices.DeleteFunc(slices.Clone(token), func(a string) bool { return !isBinding(a) })
	}
	return append(slices.DeleteFunc(abilities, isBinding), keep...)
}

// intersect is what both lists of abilities grant: each ability of one
// that the other covers (see groundwork.Can), so "forms:*" and
// "forms:view" give "forms:view", and "*" gives the other list.
func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if groundwork.Can(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	for _, x := range b {
		if groundwork.Can(a, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// ListTokens returns every token, revoked and expired ones too.
func (s *Service) ListTokens(ctx context.Context) ([]Token, error) {
	ts, err := s.store.ListTokens(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("auth: list tokens: %w", err)
	}
	return ts, nil
}

// Token returns the token with this ID (never its secret); ErrNotFound
// when there is none.
func (s *Service) Token(ctx context.Context, id int64) (Token, error) {
	t, _, err := s.store.TokenByID(ctx, id)
	if err != nil {
		return Token{}, fmt.Errorf("auth: token %d: %w", id, err)
	}
	return t, nil
}

// RevokeToken revokes a token at once; ErrNotFound when there is none.
// Revoking a revoked token changes nothing.
func (s *Service) RevokeToken(ctx context.Context, id int64) error {
	if err := s.store.RevokeToken(ctx, id, s.now().UTC()); err != nil {
		return fmt.Errorf("auth: revoke token %d: %w", id, err)
	}
	if hs := s.hooks.tokenRevoked.All(); len(hs) > 0 {
		t, _, err := s.store.TokenByID(ctx, id)
		if err != nil {
			return fmt.Errorf("auth: revoke token %d: %w", id, err)
		}
		for _, h := range hs {
			h(ctx, t)
		}
	}
	return nil
}

// Middleware returns middleware that lets a request through only with a
// live token that may use ability (any live token when ability is ""):
// 401 {"message": "Unauthenticated."} without one, 403 {"message": "This
// action is unauthorized.", "ability": ability} when the token lacks the
// ability. Handlers behind it find the caller with groundwork.CallerFrom.
func (s *Service) Middleware(ability string) func(http.Handler) http.Handler {
	g := &api.Guard{Tokens: s}
	return func(next http.Handler) http.Handler { return g.Require(ability, next) }
}
