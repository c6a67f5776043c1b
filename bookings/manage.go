package bookings

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/groundwork-go/groundwork/bookings/slots"
	"github.com/groundwork-go/groundwork/internal/api"
)

// Manage-link defaults and texts: the words a customer sees when a link
// or a change is refused.
const (
	// ChangeWindowDefault: a customer may cancel or reschedule until this
	// long before the start.
	ChangeWindowDefault = 24 * time.Hour

	msgBadManageToken       = "That booking link is no longer valid. Please check your confirmation email."
	msgCannotCancel         = "That booking can no longer be cancelled."
	msgCancelDisabled       = "Bookings cannot be cancelled from this link. Please contact us instead."
	msgTooLateToCancel      = "It is too close to your appointment to cancel it online. Please contact us instead."
	msgCannotReschedule     = "That booking can no longer be rescheduled."
	msgServiceGone          = "That service is no longer taking bookings."
	msgTooLateToReschedule  = "It is too close to your appointment to reschedule it online. Please contact us instead."
	msgTimeNotUnderstood    = "That appointment time could not be understood."
	msgAlreadyAtThatTime    = "Your booking is already at that time."
	msgRescheduleNotOffered = "That appointment time is not available. Please choose another."
	// msgInsideChangeWindow refuses a move, through a manage link, to a
	// time so close that the booking could no longer be changed online.
	msgInsideChangeWindow = "That time is too close to change again online. Please choose a later time, or contact us instead."
)

// ErrBadManageToken: a manage token that is malformed, unknown, or of a
// booking that is gone. The cases are not told apart.
var ErrBadManageToken = errors.New("bookings: bad manage token")

var manageTokenPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ManageMeta says what the customer may still do through the link.
type ManageMeta struct {
	CanCancel           bool       `json:"can_cancel"`
	CanReschedule       bool       `json:"can_reschedule"`
	ChangesAllowedUntil *time.Time `json:"changes_allowed_until"`
	// RescheduleFrom is the earliest time the link may move the booking
	// to: a move leaves it changeable online, so no sooner than the
	// change window from now. Nil when it cannot be rescheduled or there
	// is no change window.
	RescheduleFrom *time.Time `json:"reschedule_from"`
}

// deadline is the last moment a customer may change b; nil for none.
func (s *Service) deadline(b Booking) *time.Time {
	if s.o.ChangeWindow <= 0 {
		return nil
	}
	d := b.Start.Add(-s.o.ChangeWindow).UTC()
	return &d
}

// changeableFrom is the earliest start a manage link may move a booking
// to: one that leaves it changeable online (ChangeWindow from now); zero
// when there is no change window.
func (s *Service) changeableFrom() time.Time {
	if s.o.ChangeWindow <= 0 {
		return time.Time{}
	}
	return s.o.Now().Add(s.o.ChangeWindow)
}

func (s *Service) pastDeadline(b Booking) bool {
	d := s.deadline(b)
	return d != nil && s.o.Now().After(*d)
}

// meta is what b's link allows now.
func (s *Service) meta(ctx context.Context, b Booking) ManageMeta {
	m := ManageMeta{ChangesAllowedUntil: s.deadline(b)}
	open := b.Active() && !s.pastDeadline(b)
	m.CanCancel = open && !s.o.DisableSelfCancel
	if open {
		svc, err := s.store.ServiceByID(ctx, b.ServiceID)
		m.CanReschedule = err == nil && svc.IsActive
	}
	if from := s.changeableFrom(); m.CanReschedule && !from.IsZero() {
		from = from.UTC()
		m.RescheduleFrom = &from
	}
	return m
}

// Managed returns the booking a manage token names, and what its link
// allows: ErrBadManageToken for a malformed token (checked before any
// database work), an unknown one, or one of a booking that is gone.
func (s *Service) Managed(ctx context.Context, token string) (Booking, ManageMeta, error) {
	if !manageTokenPattern.MatchString(token) {
		return Booking{}, ManageMeta{}, ErrBadManageToken
	}
	hash := sha256.Sum256([]byte(token))
	b, stored, err := s.store.BookingByTokenHash(ctx, hash[:])
	if errors.Is(err, ErrNotFound) || err == nil && !sameToken(token, stored) {
		return Booking{}, ManageMeta{}, ErrBadManageToken
	}
	if err != nil {
		return Booking{}, ManageMeta{}, fmt.Errorf("bookings: manage: %w", err)
	}
	return b, s.meta(ctx, b), nil
}

// ReissueManageToken gives a booking a new manage token (the old one stops
// working at once), returns it, and emits booking.manage_token_reissued
// with it for the host to deliver.
func (s *Service) ReissueManageToken(ctx context.Context, id int64) (string, error) {
	token, hash, err := s.newManageToken()
	if err != nil {
		return "", fmt.Errorf("bookings: reissue manage token: %w", err)
	}
	event := func(b Booking) Event {
		return Event{Type: EventManageTokenReissued, Booking: b, Actor: ActorAdmin, ManageToken: token}
	}
	hook := s.changeHook(func(b Booking) []Event { return []Event{event(b)} })
	b, err := change(ctx, s, hook, 0, func(ctx context.Context) (Booking, error) {
		return s.store.SetManageTokenHash(ctx, id, hash, s.sealStored(token), s.o.Now())
	}, one)
	if err != nil {
		return "", fmt.Errorf("bookings: reissue manage token of booking %d: %w", id, err)
	}
	s.emit(ctx, event(b))
	return token, nil
}

// refusal is a manage answer of {"message"} alone with its status.
func refusal(status int, msg string) error { return api.Errorf(status, "%s", msg) }

// CancelManaged cancels through a manage link, with these checks in
// this order: not active (409), cancelling turned off (403), past
// the change window (422), a race lost (409).
func (s *Service) CancelManaged(ctx context.Context, token, reason string) (Booking, ManageMeta, error) {
	b, _, err := s.Managed(ctx, token)
	if err != nil {
		return Booking{}, ManageMeta{}, err
	}
	switch {
	case !b.Active():
		return Booking{}, ManageMeta{}, refusal(http.StatusConflict, msgCannotCancel)
	case s.o.DisableSelfCancel:
		return Booking{}, ManageMeta{}, refusal(http.StatusForbidden, msgCancelDisabled)
	case s.pastDeadline(b):
		return Booking{}, ManageMeta{}, refusal(http.StatusUnprocessableEntity, msgTooLateToCancel)
	}
	cancelled, err := s.Cancel(ctx, b.ID, ActorCustomer, reason)
	if errors.Is(err, ErrWrongStatus) {
		return Booking{}, ManageMeta{}, refusal(http.StatusConflict, msgCannotCancel)
	}
	if err != nil {
		return Booking{}, ManageMeta{}, err
	}
	return cancelled, s.meta(ctx, cancelled), nil
}

// RescheduleManaged moves a booking through its manage link, with these
// checks in this order (the booking's own current time never blocks its
// move): the window rules on
// start (422 with errors), not active (409), the service gone (404), past
// the change window (422), not understood (422), the same time (422), not
// offered by the booking's provider (422), then taken meanwhile (409) or
// busy (503).
func (s *Service) RescheduleManaged(ctx context.Context, token, startTime string) (Booking, ManageMeta, error) {
	b, _, err := s.Managed(ctx, token)
	if err != nil {
		return Booking{}, ManageMeta{}, err
	}
	if startTime == "" {
		return Booking{}, ManageMeta{}, invalid("start_time", api.MsgRequired("start_time"))
	}
	start, parseErr := time.Parse(time.RFC3339, startTime)
	svc, svcErr := s.store.ServiceByID(ctx, b.ServiceID)
	if parseErr == nil && svcErr == nil {
		_, minAdvance, maxAdvance := s.rules(svc)
		now := s.o.Now()
		switch {
		case start.Before(now.Add(max(minAdvance, 0))):
			return Booking{}, ManageMeta{}, invalid("start_time", msgTooSoon)
		case maxAdvance > 0 && start.After(now.Add(maxAdvance)):
			return Booking{}, ManageMeta{}, invalid("start_time", msgTooFar)
		case start.Before(s.changeableFrom()) && !start.Equal(b.Start):
			// The customer would be locked out of the booking they just
			// moved: a move through the link keeps it changeable.
			return Booking{}, ManageMeta{}, invalid("start_time", msgInsideChangeWindow)
		}
	}
	switch {
	case !b.Active():
		return Booking{}, ManageMeta{}, refusal(http.StatusConflict, msgCannotReschedule)
	case errors.Is(svcErr, ErrNotFound) || svcErr == nil && !svc.IsActive:
		return Booking{}, ManageMeta{}, refusal(http.StatusNotFound, msgServiceGone)
	case svcErr != nil:
		return Booking{}, ManageMeta{}, svcErr
	case s.pastDeadline(b):
		return Booking{}, ManageMeta{}, refusal(http.StatusUnprocessableEntity, msgTooLateToReschedule)
	case parseErr != nil:
		return Booking{}, ManageMeta{}, refusal(http.StatusUnprocessableEntity, msgTimeNotUnderstood)
	case start.Equal(b.Start):
		return Booking{}, ManageMeta{}, refusal(http.StatusUnprocessableEntity, msgAlreadyAtThatTime)
	}
	moved, err := s.Reschedule(ctx, b.ID, start, ActorCustomer)
	switch {
	case errors.Is(err, ErrWrongStatus):
		return Booking{}, ManageMeta{}, refusal(http.StatusConflict, msgCannotReschedule)
	case errors.Is(err, errNotOffered):
		return Booking{}, ManageMeta{}, refusal(http.StatusUnprocessableEntity, msgRescheduleNotOffered)
	case err != nil:
		return Booking{}, ManageMeta{}, err
	}
	return moved, s.meta(ctx, moved), nil
}

// sameToken reports whether token hashes to hash, in constant time.
func sameToken(token string, hash []byte) bool {
	sum := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(sum[:], hash) == 1
}

// RescheduleSlots are the times b may move to over [from, to), clipped to
// the booking window and to times that leave it changeable online (no
// sooner than ChangeWindow from now): its provider's slots of its length,
// with the booking's own time not busy (so a move may overlap it), its
// current start left out. None when b is not active or has no provider.
func (s *Service) RescheduleSlots(ctx context.Context, b Booking, from, to time.Time) ([]Slot, error) {
	return s.rescheduleSlots(ctx, b, from, to, true)
}

// rescheduleSlots is RescheduleSlots; without customer, the times the
// site's owner may move it to: from any time the service offers, not
// only from the time a change online must leave.
func (s *Service) rescheduleSlots(ctx context.Context, b Booking, from, to time.Time, customer bool) ([]Slot, error) {
	if !b.Active() || b.ProviderID == nil {
		return nil, nil
	}
	svc, err := s.store.ServiceByID(ctx, b.ServiceID)
	if err != nil {
		return nil, fmt.Errorf("bookings: reschedule slots: %w", err)
	}
	// The booking's provider and, for a collective booking, its hosts:
	// a time is offered when all of them have it.
	var ps []Offer
	for _, id := range append([]int64{*b.ProviderID}, b.Hosts...) {
		o, err := s.offerOf(ctx, svc, id)
		if err != nil {
			return nil, fmt.Errorf("bookings: reschedule slots: %w", err)
		}
		ps = append(ps, o)
	}
	from, to, ok := s.window(svc, from, to)
	if floor := s.changeableFrom(); customer && from.Before(floor) {
		from = floor
	}
	if !ok || !from.Before(to) {
		return nil, nil
	}
	ids := make([]int64, len(ps))
	for i, o := range ps {
		ids[i] = o.ID
	}
	f, t, bf, bt := calendarSpan(from, to)
	reach := limitReach(svc, ps)
	cal, err := s.readAvailability(ctx, AvailabilityQuery{ServiceID: svc.ID, ProviderIDs: ids, From: f, To: t, BusyFrom: bf.Add(-reach),
		BusyTo: bt.Add(reach), Now: s.o.Now(), ExceptBooking: b.ID})
	if err != nil {
		return nil, fmt.Errorf("bookings: reschedule slots: %w", err)
	}
	r := s.engine(svc)
	var out []Slot
	for _, o := range ps {
		p := host(svc, o, cal, cal.Busy[o.ID])
		p.Length = b.End.Sub(b.Start)
		n := len(out)
		out = r.Range(out, p, from, to)
		// Not the booking's own time; no seats shown (a move takes one).
		kept := out[:n]
		for _, sl := range out[n:] {
			if !sl.Start.Equal(b.Start) {
				kept = append(kept, Slot{Period: sl.Period, ProviderID: o.ID})
			}
		}
		out = kept
	}
	if len(ps) > 1 {
		out = slots.Common(out, len(ps))
		for i := range out {
			out[i].ProviderID = ps[0].ID
		}
	}
	return s.filterSlots(ctx, svc, out), nil
}
