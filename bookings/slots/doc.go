// Package slots is the booking engine's arithmetic: from a provider's
// weekly hours, dated overrides and closed days, a service's length, grid
// and buffers, the busy time around (bookings, holds, external
// calendars) and the booking limits, it works out the slots offered.
//
// It is pure: no database, no HTTP and no clock but the times it is
// given, so every rule can be tested and measured on its own. The
// bookings package reads the rules and busy time from its store, turns
// them into a [Rules] and one [Provider] per host, and asks:
//
//   - [Rules.Range]: a provider's slots over a span, limits applied;
//   - [Rules.Offers]: whether a provider offers a slot starting at an
//     instant (a booking's own check, without drawing the day);
//   - [Merge] and [Common]: the slots of several providers as one list,
//     or only the periods all of them offer (a collective meeting);
//   - [DaySlots]: one local day, the rules of time zones spelled out.
//
// Times of day are wall-clock minutes in the provider's zone ([Clock]);
// dates have no zone ([Date]). Periods are half-open: back to back is
// allowed.
package slots
