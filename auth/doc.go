// Package auth signs people in to a site's pages and issues the API
// tokens every groundwork admin API accepts.
//
// # Users and passwords
//
// A [User] has a name, an email address (unique, compared in any case,
// stored in lower case), a password, a verified time and capabilities
// ("view_search_reporting", "manage-emailmarketing-feeds", "*"; see
// [User.Can]). Passwords are hashed with argon2id (golang.org/x/crypto) at
// OWASP's parameters or above (19 MiB, two passes, one lane; see
// [PasswordParams]) and stored PHC-style ("$argon2id$v=19$m=...,t=...,p=...
// $salt$hash"), so the costs can be raised: an older hash still checks and
// is replaced at the user's next sign-in. Hashing is bounded to half the
// CPUs at once (Options.PasswordConcurrency); a sign-in that waits longer
// than Options.PasswordWait for its turn gives up with [ErrBusy] (a 503
// page), so a flood of sign-ins queues rather than starving every other
// request.
//
// # The flows
//
// [NewWeb] serves the pages of web sign-in, server-rendered, accessible
// and without JavaScript, each at Laravel Breeze's path:
//
//	GET  POST /login                     email, password, remember
//	GET  POST /register                  name, email, password, password_confirmation
//	GET  POST /forgot-password           email: "If an account uses that address, a reset link is on its way to it. ..."
//	GET       /reset-password/{token}    ?email= fills the address (also /reset-password?token=)
//	     POST /reset-password            token, email, password, password_confirmation
//	GET       /verify-email              the "please verify" notice, with a resend button
//	GET       /verify-email/{id}/{hash}  the signed link from the mail (60 minutes)
//	     POST /email/verification-notification   resend (6 a minute)
//	GET  POST /confirm-password          asks for the password again (lasts 3 hours; never
//	                                     given by a remember-me cookie); the address, passkeys
//	                                     and two-factor settings ask for it first
//	     POST /logout
//	GET  POST /settings/tokens           the user's own API tokens (shown once, revocable)
//
// Errors are shown beside their fields, tied to the inputs with
// aria-describedby and listed in a summary, in fixed texts
// ("These credentials do not match our records." on email). After 5
// sign-ins in a minute from one email and client IP the next is refused
// ("Too many sign-in attempts. Please try again in N seconds.", 429) before
// its password is looked at; a success clears the count. Give
// Options.LoginLimiter a store.SQLRateLimiter and the count is kept in the
// database, so it holds across instances. Forgot-password answers the same
// whether or not the account exists, and an unknown email at sign-in costs
// the same argon2id time as a wrong password. Reset tokens are stored
// hashed, last 60 minutes and serve once; a reset, like
// [Service.SetPassword], signs the user out everywhere. Mail goes through a
// mail.Mailer, in the background. Registration can be turned off, and
// email verification required (it is not by default).
//
// # Sessions and remember me
//
// Sessions live in the database, not in the cookie: the gw_session cookie
// (HttpOnly, SameSite=Lax, Secure over TLS) holds a random id of which the
// database keeps only the SHA-256. A new id is made at every sign-in (an id
// planted before is never the signed-in one) and the session is deleted at
// sign-out and at any password change. Sessions end after 120 idle minutes
// and 24 hours in all; the last-seen time is written at most once a
// minute. "Remember me" is a separate 400-day gw_remember cookie,
// "<selector>.<validator>", stored as the selector and the validator's
// hash; using it starts a new session and replaces it with a new one, and
// sign-out and password resets revoke a user's tokens. A periodic job
// ([PeriodicJobs]) prunes what has ended.
//
// We keep sessions ourselves rather than with alexedwards/scs: scs stores
// an opaque blob under the plain token, while sign-in needs the sessions
// of one user (to end them all at a password change), the id stored only
// as a hash, and the session read joined to its user so an authenticated
// request costs one indexed read; and scs buffers every response to write
// its cookie.
//
// # Middleware
//
// A host guards its own pages with [Web.RequireUser] (a guest is sent to
// /login and brought back after; a JSON client gets 401), [Web.RequireGuest],
// [Web.RequireVerified], [Web.RequirePasswordConfirmed] and
// [Web.RequireCapability] (403), and reads the user with [UserFrom]. Every
// POST of the pages is refused when a browser says it came from another
// origin (net/http's CrossOriginProtection) or when it gives an XSRF token
// that is not the one in the XSRF-TOKEN cookie; a single-page app replays
// that cookie in X-XSRF-TOKEN. [Web.Protect] gives a host's own handlers
// the same protection.
//
// # Tokens
//
// [Service.CreateToken] returns a plaintext token of the form
// "<id>|gw_<40 letters and digits>" exactly once; only the SHA-256 hash of
// the secret part is stored, and checks compare hashes in constant time.
// A token has a name, abilities, an optional expiry, a last-used time
// (written at most once a minute) and can be revoked at once. A token may
// belong to a user ([Service.CreateUserToken]; its abilities never exceed
// the user's capabilities, and the "api" throttle counts all of a user's
// tokens as one caller); tokens made by the reference server's CLI belong
// to nobody.
//
// An ability names what a token may do, e.g. "forms:create". A granted
// "*" covers everything; "forms:*" covers every "forms:..." ability and
// "webhookSubscription.*" every "webhookSubscription...." one; see [Can].
// Every groundwork domain accepts a TokenVerifier; *[Service] is one.
// [Service.Middleware] guards a host's own handlers, answering 401
// {"message": "Unauthenticated."} or 403 {"message": "This action is
// unauthorized."}. [NewHandler] serves GET /api/v1/auth/token, which
// describes the calling token so a user can check one.
//
// # Hooks
//
// A host learns of what happens to accounts through hooks, each a named
// type run after its change is stored: [Service.OnUserRegistered],
// [Service.OnSignedIn], [Service.OnSignedOut], [Service.OnPasswordReset],
// [Service.OnTokenCreated] and [Service.OnTokenRevoked].
//
// # Storage
//
// Package authsql keeps users, sessions, remember-me tokens, password
// resets and tokens in SQLite or Postgres; package authtest holds the
// conformance suite every [Store] passes.
//
// # Setting up the database
//
// Migrate the host's database with authsql.Migrations before use:
// store.Migrate(ctx, db, authsql.Migrations) applies them with the core
// tables (rate limits, idempotency keys) and River's, and is safe to run
// at every start and from several instances at once. One rate limiter may
// be shared by every handler of every domain (each names its own keys);
// store.NewSQLRateLimiter(db, nil) holds the limits across instances.
package auth
