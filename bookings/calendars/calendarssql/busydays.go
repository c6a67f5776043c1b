package calendarssql

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/groundwork-go/groundwork/bookings"
	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/store"
)

// A provider's busy time from their calendars is read, for slots and
// before each booking's lock, from bookings_busy_days: every connection's
// periods merged, one row a UTC day, rebuilt for the days a sync or a
// disconnection touches in the same transaction. The periods of each
// connection stay in bookings_busy_periods, which a sync replaces span by
// span.

const daySeconds = 24 * 60 * 60

// dayOf is the UTC day t falls in, as days since 1970-01-01.
func dayOf(t time.Time) int64 {
	s := t.Unix()
	if s < 0 && s%daySeconds != 0 {
		return s/daySeconds - 1
	}
	return s / daySeconds
}

// dayStart is the first instant of day.
func dayStart(day int64) time.Time { return time.Unix(day*daySeconds, 0).UTC() }

// encodeSpans writes periods within one day as "start-end,..." in Unix
// seconds, start rounded down and end up.
func encodeSpans(ps []bookings.Period) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		end := p.End.Unix()
		if p.End.Nanosecond() != 0 {
			end++
		}
		b.WriteString(strconv.FormatInt(p.Start.Unix(), 10))
		b.WriteByte('-')
		b.WriteString(strconv.FormatInt(end, 10))
	}
	return b.String()
}

// decodeSpans appends the periods of s that overlap [from, to) to out.
func decodeSpans(out []bookings.Period, s string, from, to time.Time) ([]bookings.Period, error) {
	lo, hi := from.Unix(), to.Unix()
	for s != "" {
		var span string
		span, s, _ = strings.Cut(s, ",")
		a, b, ok := strings.Cut(span, "-")
		start, err1 := strconv.ParseInt(a, 10, 64)
		end, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return out, fmt.Errorf("calendarssql: busy day spans %q are not readable", span)
		}
		if start < hi && end > lo {
			out = append(out, bookings.Period{Start: time.Unix(start, 0).UTC(), End: time.Unix(end, 0).UTC()})
		}
	}
	return out, nil
}

// rebuildBusyDays writes again the busy days of provider that [from, to)
// touches, from every period of the provider's connections, in tx.
func (s *Store) rebuildBusyDays(ctx context.Context, tx *sqlx.Tx, providerID int64, from, to time.Time) error {
	first, last := dayOf(from), dayOf(to.Add(-time.Nanosecond))
	lo, hi := dayStart(first), dayStart(last+1)
	var rows []struct {
		Start store.Time `db:"start_time"`
		End   store.Time `db:"end_time"`
	}
	if err := tx.SelectContext(ctx, &rows, s.db.Rebind(`SELECT start_time, end_time FROM bookings_busy_periods
		WHERE provider_id = ? AND start_time < ? AND end_time > ?`), providerID, store.NewTime(hi), store.NewTime(lo)); err != nil {
		return mapErr(err, "rebuild busy days")
	}
	periods := make([]bookings.Period, len(rows))
	for i, r := range rows {
		periods[i] = bookings.Period{Start: r.Start.Time, End: r.End.Time}
	}
	periods = slots.MergePeriods(periods)
	days := map[int64][]bookings.Period{}
	for _, p := range periods {
		for d := max(dayOf(p.Start), first); d <= last && dayStart(d).Before(p.End); d++ {
			start, end := p.Start, p.End
			if ds := dayStart(d); start.Before(ds) {
				start = ds
			}
			if de := dayStart(d + 1); end.After(de) {
				end = de
			}
			days[d] = append(days[d], bookings.Period{Start: start, End: end})
		}
	}
	if _, err := tx.ExecContext(ctx, s.db.Rebind(`DELETE FROM bookings_busy_days WHERE provider_id = ? AND day >= ? AND day <= ?`),
		providerID, first, last); err != nil {
		return mapErr(err, "rebuild busy days")
	}
	keys := make([]int64, 0, len(days))
	for d := range days {
		keys = append(keys, d)
	}
	slices.Sort(keys)
	const batch = 200
	for len(keys) > 0 {
		n := min(batch, len(keys))
		q := `INSERT INTO bookings_busy_days (provider_id, day, spans) VALUES `
		args := make([]any, 0, 3*n)
		for i, d := range keys[:n] {
			if i > 0 {
				q += ", "
			}
			q += "(?, ?, ?)"
			args = append(args, providerID, d, encodeSpans(days[d]))
		}
		if _, err := tx.ExecContext(ctx, s.db.Rebind(q), args...); err != nil {
			return mapErr(err, "rebuild busy days")
		}
		keys = keys[n:]
	}
	return nil
}

// Busy implements calendars.Store: the busy days of the providers
// overlapping [from, to), one read.
func (s *Store) Busy(ctx context.Context, providerIDs []int64, from, to time.Time) (map[int64][]bookings.Period, error) {
	if len(providerIDs) == 0 {
		return nil, nil
	}
	query, args, err := sqlx.In(`SELECT provider_id, spans FROM bookings_busy_days WHERE provider_id IN (?) AND day >= ? AND day <= ? ORDER BY provider_id, day`,
		providerIDs, dayOf(from), dayOf(to.Add(-time.Nanosecond)))
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Reader().QueryContext(ctx, s.db.Rebind(query), args...)
	if err != nil {
		return nil, mapErr(err, "busy days")
	}
	defer rows.Close()
	var busy map[int64][]bookings.Period
	for rows.Next() {
		var provider int64
		var spans string
		if err := rows.Scan(&provider, &spans); err != nil {
			return nil, mapErr(err, "busy days")
		}
		if busy == nil {
			busy = map[int64][]bookings.Period{}
		}
		// The days come in order and a day's spans are sorted and within
		// it, so each provider's list is sorted by start.
		if busy[provider], err = decodeSpans(busy[provider], spans, from, to); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err, "busy days")
	}
	return busy, nil
}
