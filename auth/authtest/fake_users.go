package authtest

import (
	"bytes"
	"context"
	"slices"
	"time"

	"github.com/groundwork-go/groundwork/auth"
)

type fakeUser struct {
	u    auth.User
	hash string
}

func copyUser(u auth.User) auth.User {
	u.Capabilities = slices.Clone(u.Capabilities)
	if u.Capabilities == nil {
		u.Capabilities = []string{}
	}
	u.EmailVerifiedAt = normPtr(u.EmailVerifiedAt)
	u.CreatedAt, u.UpdatedAt = norm(u.CreatedAt), norm(u.UpdatedAt)
	return u
}

// CreateUser implements auth.Store.
func (f *Fake) CreateUser(_ context.Context, u auth.User, hash string) (auth.User, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fu := range f.users {
		if fu.u.Email == u.Email {
			return auth.User{}, auth.ErrEmailTaken
		}
	}
	f.nextUser++
	u = copyUser(u)
	u.ID = f.nextUser
	f.users[u.ID] = fakeUser{u: u, hash: hash}
	return copyUser(u), nil
}

// UserByID implements auth.Store.
func (f *Fake) UserByID(_ context.Context, id int64) (auth.User, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fu, ok := f.users[id]
	if !ok {
		return auth.User{}, "", auth.ErrNotFound
	}
	return copyUser(fu.u), fu.hash, nil
}

// UserByEmail implements auth.Store.
func (f *Fake) UserByEmail(_ context.Context, email string) (auth.User, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fu := range f.users {
		if fu.u.Email == email {
			return copyUser(fu.u), fu.hash, nil
		}
	}
	return auth.User{}, "", auth.ErrNotFound
}

// ListUsers implements auth.Store.
func (f *Fake) ListUsers(context.Context) ([]auth.User, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]auth.User, 0, len(f.users))
	for _, fu := range f.users {
		out = append(out, copyUser(fu.u))
	}
	slices.SortFunc(out, func(a, b auth.User) int { return int(a.ID - b.ID) })
	return out, nil
}

// updateUser applies change to a user, or returns ErrNotFound.
func (f *Fake) updateUser(id int64, at time.Time, change func(*fakeUser)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	fu, ok := f.users[id]
	if !ok {
		return auth.ErrNotFound
	}
	change(&fu)
	fu.u.UpdatedAt = norm(at)
	f.users[id] = fu
	return nil
}

// SetPasswordHash implements auth.Store.
func (f *Fake) SetPasswordHash(_ context.Context, id int64, hash string, at time.Time) error {
	return f.updateUser(id, at, func(fu *fakeUser) { fu.hash = hash })
}

// MarkEmailVerified implements auth.Store.
func (f *Fake) MarkEmailVerified(_ context.Context, id int64, at time.Time) error {
	return f.updateUser(id, at, func(fu *fakeUser) {
		if fu.u.EmailVerifiedAt == nil {
			fu.u.EmailVerifiedAt = normPtr(&at)
		}
	})
}

// SetCapabilities implements auth.Store.
func (f *Fake) SetCapabilities(_ context.Context, id int64, caps []string, at time.Time) error {
	return f.updateUser(id, at, func(fu *fakeUser) { fu.u.Capabilities = slices.Clone(caps) })
}

func copySession(s auth.Session) auth.Session {
	s.IDHash = bytes.Clone(s.IDHash)
	s.CreatedAt, s.LastSeenAt, s.PasswordConfirmedAt = norm(s.CreatedAt), norm(s.LastSeenAt), norm(s.PasswordConfirmedAt)
	return s
}

// CreateSession implements auth.Store.
func (f *Fake) CreateSession(_ context.Context, s auth.Session) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions[string(s.IDHash)] = copySession(s)
	return nil
}

// SessionByHash implements auth.Store.
func (f *Fake) SessionByHash(_ context.Context, idHash []byte) (auth.Session, auth.User, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.sessions[string(idHash)]
	if !ok {
		return auth.Session{}, auth.User{}, auth.ErrNotFound
	}
	return copySession(s), copyUser(f.users[s.UserID].u), nil
}

func (f *Fake) changeSession(idHash []byte, change func(*auth.Session)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.sessions[string(idHash)]; ok {
		change(&s)
		f.sessions[string(idHash)] = s
	}
	return nil
}

// TouchSession implements auth.Store.
func (f *Fake) TouchSession(_ context.Context, idHash []byte, at time.Time) error {
	return f.changeSession(idHash, func(s *auth.Session) {
		if at = norm(at); s.LastSeenAt.Before(at) {
			s.LastSeenAt = at
		}
	})
}

// ConfirmSessionPassword implements auth.Store.
func (f *Fake) ConfirmSessionPassword(_ context.Context, idHash []byte, at time.Time) error {
	return f.changeSession(idHash, func(s *auth.Session) { s.PasswordConfirmedAt = norm(at) })
}

// DeleteSession implements auth.Store.
func (f *Fake) DeleteSession(_ context.Context, idHash []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.sessions, string(idHash))
	return nil
}

// DeleteUserSessions implements auth.Store.
func (f *Fake) DeleteUserSessions(_ context.Context, userID int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, s := range f.sessions {
		if s.UserID == userID {
			delete(f.sessions, k)
		}
	}
	return nil
}

// CreateRememberToken implements auth.Store.
func (f *Fake) CreateRememberToken(_ context.Context, t auth.RememberToken) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	t.ValidatorHash = bytes.Clone(t.ValidatorHash)
	t.ExpiresAt, t.CreatedAt = norm(t.ExpiresAt), norm(t.CreatedAt)
	f.remember[t.Selector] = t
	return nil
}

// TakeRememberToken implements auth.Store.
func (f *Fake) TakeRememberToken(_ context.Context, selector string) (auth.RememberToken, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.remember[selector]
	if !ok {
		return auth.RememberToken{}, auth.ErrNotFound
	}
	delete(f.remember, selector)
	return t, nil
}

// DeleteUserRememberTokens implements auth.Store.
func (f *Fake) DeleteUserRememberTokens(_ context.Context, userID int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, t := range f.remember {
		if t.UserID == userID {
			delete(f.remember, k)
		}
	}
	return nil
}

// PutPasswordReset implements auth.Store.
func (f *Fake) PutPasswordReset(_ context.Context, r auth.PasswordReset) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	r.TokenHash, r.CreatedAt = bytes.Clone(r.TokenHash), norm(r.CreatedAt)
	f.resets[r.UserID] = r
	return nil
}

// PasswordResetOf implements auth.Store.
func (f *Fake) PasswordResetOf(_ context.Context, userID int64) (auth.PasswordReset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.resets[userID]
	if !ok {
		return auth.PasswordReset{}, auth.ErrNotFound
	}
	r.TokenHash = bytes.Clone(r.TokenHash)
	return r, nil
}

// TakePasswordReset implements auth.Store.
func (f *Fake) TakePasswordReset(_ context.Context, userID int64, tokenHash []byte) (auth.PasswordReset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.resets[userID]
	if !ok || !bytes.Equal(r.TokenHash, tokenHash) {
		return auth.PasswordReset{}, auth.ErrNotFound
	}
	delete(f.resets, userID)
	return r, nil
}

// Prune implements auth.Store.
func (f *Fake) Prune(_ context.Context, p auth.Prune) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n int64
	for k, s := range f.sessions {
		if s.LastSeenAt.Before(p.IdleBefore) || s.CreatedAt.Before(p.CreatedBefore) {
			delete(f.sessions, k)
			n++
		}
	}
	for k, t := range f.remember {
		if !t.ExpiresAt.After(p.Now) {
			delete(f.remember, k)
			n++
		}
	}
	for k, r := range f.resets {
		if r.CreatedAt.Before(p.ResetsBefore) {
			delete(f.resets, k)
			n++
		}
	}
	return n, nil
}
