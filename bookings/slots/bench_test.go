package slots_test

import (
	"strings"
	"testing"
	"time"

	"github.com/groundwork-go/groundwork/bookings/slots"
)

// The engine alone: a month of days in London, two windows a day,
// 30-minute slots every 15 minutes; October holds the repeated hour,
// November no change of offset.
func BenchmarkDaySlotsMonth(b *testing.B) {
	loc, err := time.LoadLocation("Europe/London")
	if err != nil {
		b.Fatal(err)
	}
	for _, month := range []time.Month{time.October, time.November} {
		b.Run(strings.ToLower(month.String()), func(b *testing.B) {
			days := make([]slots.Day, 0, 31)
			for d := (slots.Date{Year: 2026, Month: month, Day: 1}); d.Month == month; d = d.AddDays(1) {
				days = append(days, slots.Day{Date: d, Loc: loc, Length: 30 * time.Minute, Interval: 15 * time.Minute,
					Windows: []slots.Clock{{Start: 0, End: 12 * 60}, {Start: 13 * 60, End: 18 * 60}}})
			}
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for _, d := range days {
					n += len(slots.DaySlots(d))
				}
				if n == 0 {
					b.Fatal("no slots")
				}
			}
		})
	}
}
