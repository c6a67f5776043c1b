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
