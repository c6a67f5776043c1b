package store

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"
)

// Time is a time column that reads and writes the same instant on both
// databases. It is written in UTC, truncated to the microsecond (the
// precision of Postgres), and always scanned back in UTC, whether the driver
// hands over a time.Time (Postgres gives local time) or text (SQLite
// expressions such as MAX). The zero Time is NULL, in both directions.
//
// Declare the column TIMESTAMP on SQLite and TIMESTAMPTZ on Postgres. On
// SQLite the stored text sorts in time order, so comparisons and ORDER BY
// work as on Postgres.
type Time struct{ time.Time }

// NewTime returns t as a column value, converted to UTC and truncated to
// the microsecond, exactly as it will be read back.
func NewTime(t time.Time) Time {
	if t.IsZero() {
		return Time{}
	}
	return Time{t.UTC().Truncate(time.Microsecond)}
}

// Value implements driver.Valuer.
func (t Time) Value() (driver.Value, error) {
	if t.IsZero() {
		return nil, nil
	}
	return t.UTC().Truncate(time.Microsecond), nil
}

// Scan implements sql.Scanner.
func (t *Time) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		t.Time = time.Time{}
	case time.Time:
		t.Time = v.UTC()
	case string:
		return t.parse(v)
	case []byte:
		return t.parse(string(v))
	default:
		return fmt.Errorf("store: scan time from %T", src)
	}
	return nil
}

// timeLayouts are the forms SQLite text takes: what the driver writes with
// _time_format=sqlite, what CURRENT_TIMESTAMP gives, and RFC 3339.
var timeLayouts = []string{
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999Z07:00",
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
}

func (t *Time) parse(s string) error {
	for _, layout := range timeLayouts {
		if v, err := time.Parse(layout, s); err == nil {
			t.Time = v.UTC()
			return nil
		}
	}
	return fmt.Errorf("store: scan time from %q: unknown format", s)
}

// MarshalJSON writes the time as RFC 3339 in UTC, or null when zero.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return t.UTC().MarshalJSON()
}

// UnmarshalJSON reads an RFC 3339 time, or null as the zero Time.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	if err := t.Time.UnmarshalJSON(b); err != nil {
		return err
	}
	t.Time = t.UTC()
	return nil
}

// JSON is a column holding V encoded as JSON: TEXT on SQLite, JSONB on
// Postgres. It scans from text or bytes, because SQLite hands text back and
// database/sql will not put text into a json.RawMessage. NULL scans as the
// zero V; the zero V is written as its JSON encoding ("null" for nil maps,
// slices and pointers), so declare the column NOT NULL only when V is never
// nil.
type JSON[T any] struct{ V T }

// Value implements driver.Valuer.
func (j JSON[T]) Value() (driver.Value, error) {
	b, err := json.Marshal(j.V)
	if err != nil {
		return nil, fmt.Errorf("store: encode json column: %w", err)
	}
	return string(b), nil
}

// Scan implements sql.Scanner.
func (j *JSON[T]) Scan(src any) error {
	var zero T
	j.V = zero
	var b []byte
	switch v := src.(type) {
	case nil:
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("store: scan json column from %T", src)
	}
	if err := json.Unmarshal(b, &j.V); err != nil {
		return fmt.Errorf("store: decode json column: %w", err)
	}
	return nil
}
