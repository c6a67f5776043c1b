// Package waitlist keeps the waitlists of full times: a customer who finds
// the time they want taken joins its waitlist with their name and email,
// and when a booking of that time is cancelled (or moved away) the first
// in line is offered it inside the cancellation's own transaction: a hold
// keeps the freed seat for them for Options.OfferWindow, and a mail
// (queued in the same transaction) links to a page where one click books
// it. An offer not taken in time lapses and the time goes to the next in
// line. Each step is an event (booking.waitlist_joined, _offered, _booked,
// _expired), which link.Join sends as webhooks from the transaction that
// made it.
//
// It is a part of bookings with a store of its own, as bookings/calendars
// is: bookings never sees it; New registers an OnEventTx hook on the
// bookings service and books through its public methods (Hold, Create,
// FullSlots).
//
// # Use
//
//	wl, err := waitlistsql.Join(env, bookingsModule.Service, &waitlist.ModuleOptions{Tokens: verifier})
//	wl.Mount(mux)
//
// and give the bookings page the waitlist's address
// (bookings.PageOptions.Waitlist), so a day with full times links to it.
package waitlist
