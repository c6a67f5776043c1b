// Package auth issues and checks API tokens, the bearer credentials every
// groundwork admin API accepts. (Web sign-in, users and sessions join this
// package later.)
//
// # Tokens
//
// [Service.CreateToken] returns a plaintext token of the form
// "<id>|gw_<40 letters and digits>" exactly once; only the SHA-256 hash of
// the secret part is stored, and checks compare hashes in constant time.
// A token has a name, abilities, an optional expiry, a last-used time
// (written at most once a minute) and can be revoked at once.
//
// # Abilities
//
// An ability names what a token may do, e.g. "forms:create". A granted
// "*" covers everything; "forms:*" covers every "forms:..." ability and
// "webhookSubscription.*" every "webhookSubscription...." one; see [Can].
//
// # Using tokens in a host
//
// Every groundwork domain accepts a TokenVerifier; *[Service] is one.
// [Service.Middleware] guards a host's own handlers, answering 401
// {"message": "Unauthenticated."} or 403 {"message": "This action is
// unauthorized."}. [NewHandler] serves GET /api/v1/auth/token, which
// describes the calling token so a user can check one.
//
// # Storage
//
// Package authsql stores tokens in SQLite or Postgres; package authtest
// holds an in-memory fake and the conformance suite every [Store] passes.
package auth
