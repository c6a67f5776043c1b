package bookings

import (
	"errors"
	"net/http"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
)

// Sentinels; test with errors.Is.
var (
	// ErrNotFound: no such service, provider or booking (or an inactive
	// service on a public route).
	ErrNotFound = errors.New("bookings: not found")
	// ErrSlugTaken: another service or provider has the slug.
	ErrSlugTaken = errors.New("bookings: slug taken")
	// ErrSlotTaken: the slot was booked since it was offered.
	ErrSlotTaken = errors.New("bookings: slot taken")
	// ErrBusy: the provider's day was locked by other bookings for
	// longer than the lock wait.
	ErrBusy = errors.New("bookings: busy")
	// ErrWrongStatus: the booking's status does not allow the move; the
	// error's text says why ("This booking is cancelled, so it cannot be
	// rescheduled."), answered with 409.
	ErrWrongStatus = errors.New("bookings: wrong status")
	// ErrPaymentUnavailable: the payment provider could not open a
	// payment page; a booking made for it was cancelled (503).
	ErrPaymentUnavailable = errors.New("bookings: payment unavailable")
)

// statusError is a move the booking's status does not allow; it wraps
// ErrWrongStatus and answers 409 with its text.
type statusError struct {
	Status Status
	Action string
}

// Error is the 409's text: "This booking is cancelled, so it cannot be
// rescheduled."
func (e *statusError) Error() string {
	return "This booking is " + statusWords[e.Status] + ", so it cannot be " + e.Action + "."
}

// Unwrap makes errors.Is(err, ErrWrongStatus) hold.
func (e *statusError) Unwrap() error { return ErrWrongStatus }

var statusWords = map[Status]string{StatusRequested: "requested", StatusConfirmed: "confirmed", StatusAwaitingPayment: "awaiting payment", StatusCancelled: "cancelled",
	StatusCompleted: "completed", StatusNoShow: "marked as a no-show"}

// ValidationError is [groundwork.ValidationError]: the 422 error.
type ValidationError = groundwork.ValidationError

// Texts of the answers, word for word on the wire (clients match on
// them).
const (
	msgNoService = "No bookable service was found for that address."
	msgTaken     = "That appointment time is no longer available. Please choose another."
	msgBusy      = "That appointment time is busy right now. Please try again."
	msgTooMany   = "Too many requests. Please wait a moment and try again."
)

var errorTable = api.Table{
	{Err: ErrNotFound, Status: http.StatusNotFound, Message: msgNoService},
	{Err: ErrSlotTaken, Status: http.StatusConflict, Message: msgTaken},
	{Err: ErrBusy, Status: http.StatusServiceUnavailable, Message: msgBusy},
	{Err: ErrPaymentUnavailable, Status: http.StatusServiceUnavailable, Message: msgPaymentUnavailable},
	{Err: ErrWrongStatus, Status: http.StatusConflict},
}
