package bookingsical

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/bookings/calendars"
)

// The bounds of one calendar read, whatever the server sends: what is
// read, parsed and expanded stays within them in bytes, memory and time,
// and a calendar past one is refused (or, for expansion, read in part)
// with a reason in words.
const (
	// MaxCalendarBytes bounds one answer read (an ICS address's, or one
	// CalDAV request's): a longer one is refused.
	MaxCalendarBytes = 16 << 20
	// MaxCalendarLines bounds the content lines of one answer (its
	// calendars together), which bounds the memory the parsed calendar
	// takes: a busy ICS export of several years is about 200,000.
	MaxCalendarLines = 300_000
	// MaxCalendarDepth bounds how deeply components nest (VCALENDAR >
	// VEVENT > VALARM is 3): the parser recurses once a level.
	MaxCalendarDepth = 8
	// MaxRecurrenceValues bounds the RDATE and EXDATE values of one
	// event; an event with more is left out as unreadable.
	MaxRecurrenceValues = 5_000
	// MaxOccurrencesPerRead bounds the occurrences walked for one read,
	// all recurring events together (MaxOccurrences bounds each).
	MaxOccurrencesPerRead = 200_000
	// MaxExpandTime bounds the time one read spends expanding recurring
	// events; the events still to expand are left out.
	MaxExpandTime = 2 * time.Second
)

// calendarError is a failed read with its reason for the provider.
func calendarError(reason string, err error) error {
	return &calendars.Error{Reason: reason, Err: err}
}

// errTooLarge is an answer past MaxCalendarBytes.
var errTooLarge = fmt.Errorf("bookingsical: the answer is larger than %d MiB", MaxCalendarBytes>>20)

// tooLarge is the read's failure for an answer past MaxCalendarBytes.
func tooLarge() error {
	return calendarError(fmt.Sprintf("This calendar is larger than %d MiB, more than can be read. Connect a calendar with fewer past events.",
		MaxCalendarBytes>>20), errTooLarge)
}

// readAll reads r up to MaxCalendarBytes; a longer answer is refused
// without reading the rest.
func readAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxCalendarBytes+1))
	if err != nil {
		return nil, calendarError("The calendar's server stopped answering part way. It will be read again shortly.", err)
	}
	if len(data) > MaxCalendarBytes {
		return nil, tooLarge()
	}
	return data, nil
}

// shape counts the content lines of iCalendar text (folded lines
// unfolded, as the parser reads them) and follows how deeply its
// components nest, refusing text past MaxCalendarLines or
// MaxCalendarDepth before the parser sees it.
type shape struct {
	lines, depth int
}

func (s *shape) check(text []byte) error {
	var name []byte // the first bytes of the logical line being read
	flush := func() error {
		if len(name) == 0 {
			return nil
		}
		s.lines++
		if s.lines > MaxCalendarLines {
			return calendarError(fmt.Sprintf("This calendar has more than %d lines, more than can be read. Connect a calendar with fewer past events.",
				MaxCalendarLines), fmt.Errorf("bookingsical: more than %d content lines", MaxCalendarLines))
		}
		n := string(name)
		if i := strings.IndexAny(n, ";:"); i >= 0 {
			switch strings.ToUpper(n[:i]) {
			case "BEGIN":
				s.depth++
				if s.depth > MaxCalendarDepth {
					return calendarError("This calendar's data is built in a way that cannot be read.",
						fmt.Errorf("bookingsical: components nested more than %d deep", MaxCalendarDepth))
				}
			case "END":
				s.depth = max(s.depth-1, 0)
			}
		}
		name = name[:0]
		return nil
	}
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
			line = line[1:] // a folded line goes on the one before
		} else if err := flush(); err != nil {
			return err
		}
		if room := 16 - len(name); room > 0 {
			name = append(name, line[:min(room, len(line))]...)
		}
	}
	return flush()
}

// checkedMultistatus reads a CalDAV answer (up to MaxCalendarBytes) and
// checks the shape of the iCalendar text its elements hold (each run of
// text, entities and CDATA decoded as the XML parser will), so the
// parser that reads it after never recurses past MaxCalendarDepth. An
// answer that is not XML is passed on as it is: the CalDAV client refuses
// it before it parses any calendar in it.
func checkedMultistatus(r io.Reader) ([]byte, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, err
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	var text []byte
	var s shape
	for {
		tok, err := dec.RawToken()
		if cd, ok := tok.(xml.CharData); ok && err == nil {
			text = append(text, cd...)
			continue
		}
		if len(text) > 0 {
			s.depth = 0 // each calendar's text on its own
			if cerr := s.check(text); cerr != nil {
				return nil, cerr
			}
			text = text[:0]
		}
		if err != nil {
			// The end (io.EOF), or where the answer stops being XML.
			return data, nil
		}
	}
}
