package bookingsical

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/emersion/go-ical"
)

// No calendar file makes reading it panic or hang, and every busy period
// read from one has its start before its end and overlaps the window
// asked for.
func FuzzReadCalendar(f *testing.F) {
	for _, name := range []string{"testdata/google.ics", "testdata/outlook.ics", "testdata/apple.ics"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTAMP:20261126T000000Z\r\nDTSTART:20261127T090000Z\r\n" +
		"DURATION:PT1H\r\nRRULE:FREQ=MINUTELY;COUNT=100000\r\nEXDATE:20261127T090100Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"))
	f.Add([]byte("BEGIN:VCALENDAR\r\nBEGIN:VFREEBUSY\r\nFREEBUSY:20261127T090000Z/PT1H,20261128T090000Z/20261128T080000Z\r\nEND:VFREEBUSY\r\nEND:VCALENDAR\r\n"))
	f.Add([]byte("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART;TZID=W. Europe Standard Time:20261127T090000\r\nDTEND;VALUE=DATE:20261126\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"))
	from := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 0, 60)
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cal, err := decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		periods, _ := Busy([]*ical.Calendar{cal}, from, to, loc, nil)
		for _, p := range periods {
			if !p.Start.Before(p.End) || !p.End.After(from) || !p.Start.Before(to) {
				t.Fatalf("period %v – %v from %q", p.Start, p.End, data)
			}
		}
	})
}
