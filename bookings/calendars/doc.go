// Package calendars reads the providers' own calendars for the time they
// are busy, and writes their bookings to them: a CalDAV account (iCloud,
// Fastmail, Nextcloud, Radicale), a calendar's secret iCal address, or a
// Google account. It is bookings' one meaning of "the providers' external
// calendars"; the month a customer picks a time from is bookings' page,
// and a provider's hours and rules are bookings' catalog.
//
// [New] attaches a [Service] to a bookings.Service: the busy time read
// from the calendars keeps those times from being offered or booked
// (read again for the day before a booking when it is older than
// Options.Freshness), a provider whose must-read calendar has gone unread
// for a day is not bookable, and each change of a booking queues, in the
// change's transaction, the job that writes it to the provider's
// destination calendar. The sources that read each kind are in
// bookingsical (CalDAV, ICS) and bookingsgoogle (Google).
//
// A connection's secret (an app password, the ICS address itself, or an
// OAuth refresh token) is sealed with Options.SecretKey and never
// answered; only when a provider is busy is kept, never what they are
// doing. Connections are read every Options.SyncInterval by a periodic
// job (one read of a connection at a time on every instance), with a
// doubling backoff after failures whose reasons are kept in words the
// provider can act on.
//
// The providers manage their connections on a page that works without
// JavaScript ([PageHandler], reached by a signed link or the host's own
// session), and an admin API does the same by bearer token
// ([AdminHandler]). [NewModule] joins it all to a host's environment
// beside the bookings module.
package calendars
