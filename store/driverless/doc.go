// Package driverless is the half of store that needs no database driver: the
// [groundwork.RateLimiter] interface with its in-memory [MemoryRateLimiter], the
// [IdempotencyRecord] kept for an Idempotency-Key, and the checks of text
// that either database can store ([ValidText], [CleanText], [ClipText]).
//
// A package that only limits or checks (a11y, the HTTP plumbing) imports
// lite and links no River, pgx or SQLite; store builds the database-backed
// pieces (store.SQLRateLimiter, store.Idempotency) on these types.
package driverless
