package emaillist

import (
	"context"
	"database/sql"
)

// Store keeps feeds. Implementations: emaillistsql (SQLite and
// Postgres); emaillisttest.RunStoreTests pins the contract below. Times
// are UTC to the microsecond.
//
// Store is this domain's adapter seam, as a driver is River's: the one
// interface a storage engine implements, and the only way the service
// reaches its data. A host keeps the SQL adapter (on its own *sql.DB, SQLite
// or Postgres) unless it brings another engine; an adapter is complete when
// the conformance suite passes on it.
type Store interface {
	// CreateFeed stores f and returns it with its ID; ErrNameTaken when
	// the form has a feed of that name.
	CreateFeed(ctx context.Context, f Feed) (Feed, error)
	// Feed returns a feed, or ErrNotFound.
	Feed(ctx context.Context, id int64) (Feed, error)
	// UpdateFeed writes every field of f (found by ID) but CreatedAt;
	// ErrNotFound, ErrNameTaken.
	UpdateFeed(ctx context.Context, f Feed) (Feed, error)
	// DeleteFeed deletes a feed; ErrNotFound when there is none.
	DeleteFeed(ctx context.Context, id int64) error
	// ListFeeds returns the feeds q selects, by ID.
	ListFeeds(ctx context.Context, q FeedQuery) ([]Feed, error)
	// ListFeedsTx is ListFeeds read in tx, the caller's transaction (as
	// ListFeeds when tx is nil): a hook that runs inside another's
	// transaction must not wait for a second connection, which a pool
	// whose connections all hold such transactions never gives.
	ListFeedsTx(ctx context.Context, tx *sql.Tx, q FeedQuery) ([]Feed, error)
}

// FeedQuery selects feeds: those of FormID (every form when 0), only the
// active ones when ActiveOnly.
type FeedQuery struct {
	FormID     int64
	ActiveOnly bool
}
