// Package bookingsical reads a provider's own calendars over iCalendar,
// for the busy time that keeps those hours off the booking page: the
// events of an ICS address or a CalDAV calendar become busy periods
// ([Busy]), recurrences expanded in each event's own zone (RRULE, RDATE,
// EXDATE, occurrences moved or cancelled by RECURRENCE-ID), transparent
// and cancelled events left out, all-day events taking the provider's
// whole local day, Windows zone names (Outlook's) read as the IANA zones
// they stand for. Only when and how long is kept: never a title, a place
// or who attends.
package bookingsical
