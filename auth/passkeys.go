package auth

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
)

// Passkeys (WebAuthn, by github.com/go-webauthn/webauthn): a user adds
// one from their account and signs in with it without typing their
// address (a discoverable credential, verified by the device's own lock:
// it stands for both factors, so no code is asked after it).
const (
	// passkeyCeremonyLifetime is how long a browser has to answer the
	// options it was given.
	passkeyCeremonyLifetime = 5 * time.Minute
	// PasskeyNameMaxLength caps a passkey's name.
	PasskeyNameMaxLength = 100
	// PasskeysMax caps how many passkeys one user keeps.
	PasskeysMax = 20
)

// ErrPasskey: a passkey answer that does not hold (forged, for another
// site, for an unknown or deleted passkey, expired, or not verified by
// the device). Its text is safe to show.
var ErrPasskey = errors.New("The passkey could not be used. Try again, or sign in with your password.")

// PasskeySite is the site a passkey belongs to: ID is its host name (the
// relying party ID, "example.com"), Origin where its pages are
// ("https://example.com"), Name what the browser shows.
type PasskeySite struct {
	ID, Origin, Name string
}

// relyingParty is the WebAuthn library configured for site.
func (s *Service) relyingParty(site PasskeySite) (*webauthn.WebAuthn, error) {
	wa, err := webauthn.New(&webauthn.Config{RPID: site.ID, RPDisplayName: site.Name, RPOrigins: []string{site.Origin},
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: passkeyCeremonyLifetime, TimeoutUVD: passkeyCeremonyLifetime},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: passkeyCeremonyLifetime, TimeoutUVD: passkeyCeremonyLifetime},
		}})
	if err != nil {
		return nil, fmt.Errorf("auth: passkeys: %w", err)
	}
	return wa, nil
}

// userHandle is the user's WebAuthn handle: their ID, eight bytes. It
// names the account to the authenticator and back, nothing more.
func userHandle(id int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(id)) }

// passkeyUser is a user and their credentials, as the library sees them.
type passkeyUser struct {
	u     User
	creds []webauthn.Credential
	keys  []Passkey
}

func (p *passkeyUser) WebAuthnID() []byte                         { return userHandle(p.u.ID) }
func (p *passkeyUser) WebAuthnName() string                       { return p.u.Email }
func (p *passkeyUser) WebAuthnDisplayName() string                { return p.u.Name }
func (p *passkeyUser) WebAuthnCredentials() []webauthn.Credential { return p.creds }

func (s *Service) passkeyUser(ctx context.Context, u User) (*passkeyUser, error) {
	keys, err := s.store.UserPasskeys(ctx, u.ID)
	if err != nil {
		return nil, fmt.Errorf("auth: passkeys: %w", err)
	}
	p := &passkeyUser{u: u, keys: keys}
	for _, k := range keys {
		var c webauthn.Credential
		if err := json.Unmarshal(k.Credential, &c); err != nil {
			return nil, fmt.Errorf("auth: passkey %d: %w", k.ID, err)
		}
		p.creds = append(p.creds, c)
	}
	return p, nil
}

// Passkeys returns a user's passkeys in the order they were added.
func (s *Service) Passkeys(ctx context.Context, userID int64) ([]Passkey, error) {
	keys, err := s.store.UserPasskeys(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("auth: passkeys: %w", err)
	}
	return keys, nil
}

// DeletePasskey deletes a user's passkey; ErrNotFound when they have none
// with that ID.
func (s *Service) DeletePasskey(ctx context.Context, userID, id int64) error {
	if err := s.store.DeletePasskey(ctx, userID, id); err != nil {
		if errors.Is(err, ErrNotFound) {
			return err
		}
		return fmt.Errorf("auth: delete passkey: %w", err)
	}
	return nil
}

// sealCeremony keeps a ceremony's state for the browser to bring back,
// sealed for kind (and the user, for a registration).
func (s *Service) sealCeremony(kind string, userID int64, sd *webauthn.SessionData) (string, error) {
	b, err := json.Marshal(sd)
	if err != nil {
		return "", fmt.Errorf("auth: passkeys: %w", err)
	}
	return s.secrets.Seal(string(b), idContext("passkey "+kind, userID)), nil
}

func (s *Service) openCeremony(kind string, userID int64, sealed string) (webauthn.SessionData, error) {
	var sd webauthn.SessionData
	plain, err := s.secrets.Open(sealed, idContext("passkey "+kind, userID))
	if err != nil || json.Unmarshal([]byte(plain), &sd) != nil || s.now().After(sd.Expires) {
		return webauthn.SessionData{}, ErrPasskey
	}
	return sd, nil
}

// BeginPasskeyRegistration starts adding a passkey for u on site: it
// returns the options for the browser's navigator.credentials.create (as
// JSON) and the ceremony's state, sealed, for FinishPasskeyRegistration.
func (s *Service) BeginPasskeyRegistration(ctx context.Context, site PasskeySite, u User) (options []byte, state string, err error) {
	pu, err := s.passkeyUser(ctx, u)
	if err != nil {
		return nil, "", err
	}
	if len(pu.keys) >= PasskeysMax {
		return nil, "", api.Invalid("passkey", fmt.Sprintf("You have %d passkeys, the most an account keeps. Delete one you no longer use first.", PasskeysMax))
	}
	wa, err := s.relyingParty(site)
	if err != nil {
		return nil, "", err
	}
	exclude := make([]protocol.CredentialDescriptor, len(pu.creds))
	for i, c := range pu.creds {
		exclude[i] = c.Descriptor()
	}
	creation, sd, err := wa.BeginRegistration(pu, webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		webauthn.WithExclusions(exclude), webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			ResidentKey: protocol.ResidentKeyRequirementRequired, UserVerification: protocol.VerificationRequired}))
	if err != nil {
		return nil, "", fmt.Errorf("auth: passkeys: %w", err)
	}
	if options, err = json.Marshal(creation); err != nil {
		return nil, "", fmt.Errorf("auth: passkeys: %w", err)
	}
	state, err = s.sealCeremony("registration", u.ID, sd)
	return options, state, err
}

// FinishPasskeyRegistration checks the browser's answer (body, the JSON of
// the new PublicKeyCredential) against the sealed state and stores the
// passkey under name ("" names it after its time). ErrPasskey when the
// answer does not hold; a *ValidationError for a bad name.
func (s *Service) FinishPasskeyRegistration(ctx context.Context, site PasskeySite, u User, state string, body io.Reader, name string) (Passkey, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "Passkey added " + s.now().Format("2 January 2006")
	}
	if utf8.RuneCountInString(name) > PasskeyNameMaxLength {
		return Passkey{}, api.Invalid("name", api.MsgMaxChars("name", PasskeyNameMaxLength))
	}
	sd, err := s.openCeremony("registration", u.ID, state)
	if err != nil {
		return Passkey{}, err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBody(io.LimitReader(body, 64<<10))
	if err != nil {
		return Passkey{}, ErrPasskey
	}
	pu, err := s.passkeyUser(ctx, u)
	if err != nil {
		return Passkey{}, err
	}
	wa, err := s.relyingParty(site)
	if err != nil {
		return Passkey{}, err
	}
	cred, err := wa.CreateCredential(pu, sd, parsed)
	if err != nil {
		s.logger.InfoContext(ctx, "auth: a passkey was refused", "user", u.ID, "error", err)
		return Passkey{}, ErrPasskey
	}
	record, err := json.Marshal(cred)
	if err != nil {
		return Passkey{}, fmt.Errorf("auth: passkeys: %w", err)
	}
	p, err := s.store.AddPasskey(ctx, Passkey{UserID: u.ID, CredentialID: cred.ID, Credential: record, Name: name, CreatedAt: s.now()})
	if errors.Is(err, ErrPasskeyTaken) {
		return Passkey{}, api.Invalid("passkey", "That passkey is already registered.")
	}
	if err != nil {
		return Passkey{}, fmt.Errorf("auth: passkeys: %w", err)
	}
	return p, nil
}

// BeginPasskeySignIn starts a sign-in with a passkey on site, the user not
// yet known: the options for navigator.credentials.get (as JSON) and the
// sealed state for FinishPasskeySignIn.
func (s *Service) BeginPasskeySignIn(site PasskeySite) (options []byte, state string, err error) {
	wa, err := s.relyingParty(site)
	if err != nil {
		return nil, "", err
	}
	assertion, sd, err := wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, "", fmt.Errorf("auth: passkeys: %w", err)
	}
	if options, err = json.Marshal(assertion); err != nil {
		return nil, "", fmt.Errorf("auth: passkeys: %w", err)
	}
	state, err = s.sealCeremony("sign-in", 0, sd)
	return options, state, err
}

// FinishPasskeySignIn checks the browser's answer (body, the JSON of the
// PublicKeyCredential) against the sealed state: the passkey's user, its
// signature counter moved on. ErrPasskey when it does not hold.
func (s *Service) FinishPasskeySignIn(ctx context.Context, site PasskeySite, state string, body io.Reader) (User, error) {
	sd, err := s.openCeremony("sign-in", 0, state)
	if err != nil {
		return User{}, err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBody(io.LimitReader(body, 64<<10))
	if err != nil {
		return User{}, ErrPasskey
	}
	wa, err := s.relyingParty(site)
	if err != nil {
		return User{}, err
	}
	var used *passkeyUser
	owner := func(rawID, handle []byte) (webauthn.User, error) {
		p, err := s.store.PasskeyByCredential(ctx, rawID)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(handle, userHandle(p.UserID)) {
			return nil, errors.New("the passkey belongs to another account")
		}
		u, err := s.User(ctx, p.UserID)
		if err != nil {
			return nil, err
		}
		if used, err = s.passkeyUser(ctx, u); err != nil {
			return nil, err
		}
		return used, nil
	}
	_, cred, err := wa.ValidatePasskeyLogin(owner, sd, parsed)
	if err != nil {
		s.logger.InfoContext(ctx, "auth: a passkey sign-in was refused", "error", err)
		groundwork.Count(s.meter, groundwork.MetricSignIns, "failure")
		return User{}, ErrPasskey
	}
	record, err := json.Marshal(cred)
	if err != nil {
		return User{}, fmt.Errorf("auth: passkeys: %w", err)
	}
	for _, k := range used.keys {
		if bytes.Equal(k.CredentialID, cred.ID) {
			if err := s.store.UsePasskey(ctx, k.ID, record, s.now()); err != nil {
				return User{}, fmt.Errorf("auth: passkeys: %w", err)
			}
		}
	}
	if cred.Authenticator.CloneWarning {
		s.logger.WarnContext(ctx, "auth: a passkey's signature counter went back: it may have been cloned", "user", used.u.ID)
		return User{}, ErrPasskey
	}
	groundwork.Count(s.meter, groundwork.MetricSignIns, "success")
	return used.u, nil
}
