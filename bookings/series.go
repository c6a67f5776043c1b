package bookings

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/bookings/slots"
)

// Repeat asks for a weekly series: Count occurrences (the first at the
// booking's start), every EveryWeeks weeks at the same local time in the
// service's zone. FreeOnly books the free occurrences when some are not;
// without it, any that is not free refuses the series, naming each.
type Repeat struct {
	Count      int  `json:"count"`
	EveryWeeks int  `json:"every_weeks"`
	FreeOnly   bool `json:"free_only"`
}

// Series is a weekly series as booked: its occurrences in order (each a
// booking with its own manage token; the first's link manages the
// series), and the times left out when FreeOnly was asked.
type Series struct {
	ID          string
	Bookings    []Booking
	ManageToken string
	Skipped     []time.Time
}

// msgSeriesNotAllowed answers a series asked of a service that allows none.
const msgSeriesNotAllowed = "This service cannot be booked as a series."

// CreateSeries books a weekly series (nb.Repeat) with one provider: the
// first, in the service's order, who has every occurrence free (or, with
// FreeOnly, the most of them), all in one transaction. A *ValidationError
// names each occurrence that is not free (repeat.N), or the rules broken.
func (s *Service) CreateSeries(ctx context.Context, nb NewBooking) (Series, error) {
	rep := nb.Repeat
	svc, err := s.ActiveService(ctx, nb.ServiceSlug)
	if err == nil {
		svc, err = svc.withLength(nb.Length)
	}
	if err != nil {
		return Series{}, err
	}
	switch {
	case rep == nil:
		return Series{}, invalid("repeat", "The repeat field is required for a series.")
	case svc.Series == nil || svc.AssignmentStrategy == AssignCollective:
		return Series{}, invalid("repeat", msgSeriesNotAllowed)
	case s.takesPayment(svc):
		return Series{}, invalid("repeat", msgNoSeriesPayment)
	case rep.Count < 2 || rep.Count > svc.Series.MaxCount:
		return Series{}, invalid("repeat.count", fmt.Sprintf("The repeat count must be between 2 and %d.", svc.Series.MaxCount))
	case rep.EveryWeeks < 1 || rep.EveryWeeks > max(svc.Series.MaxEveryWeeks, 1):
		return Series{}, invalid("repeat.every_weeks", fmt.Sprintf("The repeat gap must be between 1 and %d weeks.", max(svc.Series.MaxEveryWeeks, 1)))
	}
	if err := s.checkNewBooking(svc, &nb); err != nil {
		return Series{}, err
	}
	offers, err := s.bookable(ctx, svc)
	if err != nil {
		return Series{}, err
	}
	if nb.ProviderID != 0 {
		offers = keepProvider(offers, nb.ProviderID)
		if len(offers) == 0 {
			return Series{}, invalid("provider_id", msgProviderNotHere)
		}
	} else {
		roundRobin(offers)
	}
	offers = s.filterProviders(ctx, svc, offers)
	if len(offers) == 0 {
		return Series{}, fmt.Errorf("bookings: create series: %w", ErrSlotTaken)
	}
	loc := location(svc.TimeZone)
	first := nb.Start.UTC().Truncate(time.Second).In(loc)
	starts := make([]time.Time, rep.Count)
	for k := range starts {
		starts[k] = first.AddDate(0, 0, 7*rep.EveryWeeks*k).UTC() // the same wall-clock time, across changes of offset
	}
	_, _, maxAdvance := s.rules(svc)
	ids := make([]int64, len(offers))
	for i, o := range offers {
		ids[i] = o.ID
	}
	last := starts[len(starts)-1]
	reach := limitReach(svc, offers)
	busyFrom, busyTo := starts[0].Add(-maxReach-reach), last.Add(2*maxReach+reach)
	cal, err := s.readAvailability(ctx, AvailabilityQuery{ServiceID: svc.ID, ProviderIDs: ids, From: slots.DateOf(starts[0]).AddDays(-1),
		To: slots.DateOf(last).AddDays(1), BusyFrom: busyFrom, BusyTo: busyTo, Now: s.o.Now()})
	if err != nil {
		return Series{}, fmt.Errorf("bookings: create series: %w", err)
	}
	best, bestFree := s.bestForSeries(svc, offers, cal, starts, maxAdvance)
	if count(bestFree) < len(starts) && !rep.FreeOnly || count(bestFree) == 0 {
		v := &ValidationError{}
		for k, free := range bestFree {
			if !free {
				v.Add("repeat."+strconv.Itoa(k), starts[k].In(loc).Format("Monday 2 January 2006, 15:04")+" is not free.")
			}
		}
		return Series{}, v
	}
	o := offers[best]
	id, err := s.newNumber()
	if err != nil {
		return Series{}, fmt.Errorf("bookings: create series: %w", err)
	}
	out := Series{ID: "SR" + id[2:]}
	rs, tokens, skipped, err := s.seriesReservations(ctx, svc, o, nb, cal, starts, bestFree, out.ID, reach)
	if err != nil {
		return Series{}, err
	}
	out.Skipped = skipped
	// Each occurrence's events made with its own manage token.
	hook := s.changeHook(func(b Booking) []Event { return creationEvents(b, tokens[b.SeriesIndex]) })
	booked, err := change(ctx, s, hook, s.o.LockWait, func(ctx context.Context) ([]Booking, error) {
		return s.store.ReserveSeries(ctx, rs)
	}, all)
	if err != nil {
		if errors.Is(err, ErrSlotTaken) || errors.Is(err, ErrBusy) {
			groundwork.Count(s.o.Meter, groundwork.MetricBookings, "conflict")
			return Series{}, fmt.Errorf("bookings: create series: %w", err)
		}
		return Series{}, fmt.Errorf("bookings: create series: %w", err)
	}
	out.Bookings, out.ManageToken = booked, tokens[0]
	for i, b := range booked {
		groundwork.Count(s.o.Meter, groundwork.MetricBookings, "created")
		for _, e := range creationEvents(b, tokens[i]) {
			s.emit(ctx, e)
		}
	}
	return out, nil
}

// bestForSeries is the offer with every start free (the first, in the
// offers' order), else the one with most, and which of the starts it has
// free.
func (s *Service) bestForSeries(svc Offering, offers []Offer, cal Availability, starts []time.Time, maxAdvance time.Duration) (best int, bestFree []bool) {
	best = -1
	r := s.engine(svc)
	for i, o := range offers {
		free := make([]bool, len(starts))
		n := 0
		p := host(svc, o, cal, nil) // the provider's rules, read once; the busy time grows below
		for k, st := range starts {
			// A series counts its own earlier occurrences against the limits
			// as it goes.
			p.Busy = seriesBusy(cal.Busy[o.ID], svc, o, starts[:k], free[:k])
			if (maxAdvance <= 0 || !st.After(s.o.Now().Add(maxAdvance))) && r.Offers(p, st) {
				free[k] = true
				n++
			}
		}
		if best < 0 || n > count(bestFree) {
			best, bestFree = i, free
		}
		if n == len(starts) {
			break
		}
	}
	return best, bestFree
}

// seriesReservations are the reservations of the free starts with
// offer o, each with its manage token (by its index), and the starts
// skipped.
func (s *Service) seriesReservations(ctx context.Context, svc Offering, o Offer, nb NewBooking, cal Availability, starts []time.Time, free []bool, seriesID string,
	reach time.Duration) (rs []Reservation, tokens map[int]string, skipped []time.Time, err error) {
	tokens = map[int]string{}
	now, visit := s.o.Now().UTC(), visitOf(ctx)
	for k, st := range starts {
		if !free[k] {
			skipped = append(skipped, st)
			continue
		}
		number, err := s.newNumber()
		if err != nil {
			return nil, nil, nil, err
		}
		token, hash, err := s.newManageToken()
		if err != nil {
			return nil, nil, nil, err
		}
		status := StatusConfirmed
		if s.needsConfirmation(svc, st, s.o.Now()) {
			status = StatusRequested
		}
		pid := o.ID
		b := Booking{Number: number, ServiceID: svc.ID, ProviderID: &pid, Status: status, Start: st, End: st.Add(length(svc, o)),
			CustomerName: nb.CustomerName, CustomerEmail: nb.CustomerEmail, CustomerPhone: nb.CustomerPhone,
			CustomerTimeZone: nb.CustomerTimeZone, AssignmentStrategy: assignedRoundRobin, IntakeVersion: svc.IntakeSchemaVersion,
			IntakeData: nb.IntakeData, Notes: nb.Notes, CreatedAt: now, UpdatedAt: now, SeriesID: seriesID, SeriesIndex: len(rs), Visit: visit}
		tokens[len(rs)] = token
		rs = append(rs, Reservation{Booking: b, ManageTokenHash: hash, ManageTokenSealed: s.sealStored(token),
			Lock: strconv.FormatInt(o.ID, 10) + "|" + slots.DateOf(st.In(location(o.TimeZone))).String(), Locks: s.limitLocks(svc, o, st),
			LockWait: s.o.LockWait, BusyFrom: st.Add(-maxReach - reach), BusyTo: st.Add(2*maxReach + reach), Place: s.placeHook(svc, o),
			// Inside the transaction the earlier occurrences are stored
			// already, so the busy time read there holds them.
			Check: func(busy []Busy) bool { return s.offersStart(svc, o, cal, st, cal.withCalendars(o.ID, busy)) }})
	}
	return rs, tokens, skipped, nil
}

// seriesBusy is busy with the series' own earlier free occurrences in it,
// which count against the limits as booked ones do (they are stored in
// the same transaction, so the store's read does not see them yet).
func seriesBusy(busy []Busy, svc Offering, o Offer, earlier []time.Time, free []bool) []Busy {
	if !hasLimits(svc, o) {
		return busy
	}
	out := append([]Busy(nil), busy...)
	for k, st := range earlier {
		if free[k] {
			out = append(out, Busy{Period: Period{Start: st, End: st.Add(length(svc, o))}, ServiceID: svc.ID})
		}
	}
	return out
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func keepProvider(offers []Offer, id int64) []Offer {
	for _, o := range offers {
		if o.ID == id {
			return []Offer{o}
		}
	}
	return nil
}

// CancelSeriesFrom cancels, through a manage link, its booking and the
// later active occurrences of its series (only it, for a booking of no
// series), with the checks of CancelManaged; it returns them as
// cancelled.
func (s *Service) CancelSeriesFrom(ctx context.Context, token, reason string) ([]Booking, error) {
	b, _, err := s.CancelManaged(ctx, token, reason)
	if err != nil {
		return nil, err
	}
	out := []Booking{b}
	rest, err := s.store.SeriesBookings(ctx, b.SeriesID)
	if err != nil {
		return out, err
	}
	for _, o := range rest {
		if o.SeriesIndex <= b.SeriesIndex || !o.Active() {
			continue
		}
		c, err := s.Cancel(ctx, o.ID, ActorCustomer, reason)
		if err != nil && !errors.Is(err, ErrWrongStatus) {
			return out, err
		}
		if err == nil {
			out = append(out, c)
		}
	}
	return out, nil
}
