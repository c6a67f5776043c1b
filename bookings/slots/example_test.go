package slots_test

import (
	"fmt"
	"time"

	"github.com/groundwork-go/groundwork/bookings/slots"
)

// The slots of one day across the spring-forward change in New York.
func ExampleDaySlots() {
	ny, _ := time.LoadLocation("America/New_York")
	day := slots.DaySlots(slots.Day{
		Date:     slots.Date{Year: 2026, Month: time.March, Day: 8},
		Loc:      ny,
		Windows:  []slots.Clock{{Start: 60, End: 240}}, // 01:00-04:00 wall clock
		Length:   30 * time.Minute,
		Interval: 30 * time.Minute,
	})
	for _, s := range day {
		fmt.Println(s.Start.In(ny).Format("15:04 MST"), s.Start.UTC().Format("15:04Z"))
	}
	// Output:
	// 01:00 EST 06:00Z
	// 01:30 EST 06:30Z
	// 03:00 EDT 07:00Z
	// 03:30 EDT 07:30Z
}

// A provider in New York who works 09:00 to 12:00 on weekdays, is closed
// on Christmas Eve and has one booking; a service of 30 minutes on a
// 30-minute grid, 15 minutes' rest after each booking, at most four a
// day: the slots of one week.
func ExampleRules_Range() {
	ny, _ := time.LoadLocation("America/New_York")
	var hours []slots.Hours
	for d := time.Monday; d <= time.Friday; d++ {
		hours = append(hours, slots.Hours{Weekday: d, Window: slots.Clock{Start: 9 * 60, End: 12 * 60}})
	}
	monday := slots.Date{Year: 2026, Month: time.December, Day: 21}
	booked := monday.AddDays(1).At(10*60, ny) // Tuesday 10:00 to 11:00
	p := slots.Provider{ID: 1, Loc: ny, Length: 30 * time.Minute, Hours: hours,
		Overrides: []slots.Override{{Date: monday.AddDays(3), Closed: true}},
		Busy:      []slots.Busy{{Period: slots.Period{Start: booked, End: booked.Add(time.Hour)}, BufferAfter: 15 * time.Minute, ServiceID: 1}}}
	r := slots.Rules{ServiceID: 1, Interval: 30 * time.Minute, BufferAfter: 15 * time.Minute,
		Limits: []slots.Limit{{Period: slots.PeriodDay, Bookings: 4}}}
	week := r.Range(nil, p, monday.In(ny), monday.AddDays(7).In(ny))
	perDay := map[string][]string{}
	for _, s := range week {
		local := s.Start.In(ny)
		day := local.Format("Mon")
		perDay[day] = append(perDay[day], local.Format("15:04"))
	}
	for _, day := range []string{"Mon", "Tue", "Wed", "Thu", "Fri"} {
		fmt.Println(day, perDay[day])
	}
	fmt.Println(r.Offers(p, booked), r.Offers(p, monday.At(9*60, ny)))
	// Output:
	// Mon [09:00 09:30 10:00 10:30 11:00 11:30]
	// Tue [09:00 11:30]
	// Wed [09:00 09:30 10:00 10:30 11:00 11:30]
	// Thu []
	// Fri [09:00 09:30 10:00 10:30 11:00 11:30]
	// false true
}
