// Package reportingstore holds types only an implementer of
// reporting.Store needs, off reporting's page (which is the host's): a
// row of the daily counts its reads return. The others its methods name
// (a hit, a goal, a dimension) are the host's too and stay in reporting.
package reportingstore

// DailyRow is a rollup row, or a sum of them.
type DailyRow struct {
	Key      string `db:"key"`
	Label    string `db:"label"`
	Views    int64  `db:"views"`
	Visitors int64  `db:"visitors"`
	Sessions int64  `db:"sessions"`
	Duration int64  `db:"duration_seconds"`
	// Bounces are the sessions of one page view and no event (kept in
	// the total and by entry page).
	Bounces int64 `db:"bounces"`
}
