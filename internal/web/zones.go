package web

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/groundwork-go/groundwork/internal/zone"
)

// The time zones a page offers and shows times in: a booking page's, the
// owner's bookings list's, a form's answers'. A page takes ?tz= when it
// names a zone (the optional script sets it to the reader's own), and
// offers the common zones besides its own.

// commonZones are offered in a time-zone choice besides the page's own
// and the one asked for.
var commonZones = []string{"UTC", "Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Paris", "Europe/Berlin", "Europe/Madrid",
	"Europe/Rome", "Europe/Amsterdam", "Europe/Stockholm", "Europe/Warsaw", "Europe/Athens", "Europe/Helsinki", "Europe/Istanbul",
	"Africa/Lagos", "Africa/Johannesburg", "Africa/Nairobi", "Asia/Dubai", "Asia/Kolkata", "Asia/Singapore", "Asia/Shanghai",
	"Asia/Tokyo", "Asia/Seoul", "Australia/Perth", "Australia/Sydney", "Pacific/Auckland", "America/Sao_Paulo",
	"America/Argentina/Buenos_Aires", "America/New_York", "America/Toronto", "America/Chicago", "America/Mexico_City",
	"America/Denver", "America/Phoenix", "America/Los_Angeles", "America/Anchorage", "Pacific/Honolulu"}

// Location is the zone named name; UTC for "" or an unknown name.
func Location(name string) *time.Location { return zone.Location(name) }

// PageZone is the zone a page shows times in: ?tz when it names a zone,
// else fallback.
func PageZone(q url.Values, fallback string) string {
	if tz := q.Get("tz"); tz != "" && tz != "Local" {
		if _, err := time.LoadLocation(tz); err == nil {
			return tz
		}
	}
	return fallback
}

// ZoneChoice is the common zones with zone among them, by the places'
// names, labelled with their offsets at now ("New York (UTC−04:00)").
func ZoneChoice(zone string, now time.Time) []Option {
	zones := slices.Clone(commonZones)
	if !slices.Contains(zones, zone) {
		zones = append(zones, zone)
	}
	out := make([]Option, len(zones))
	for i, z := range zones {
		out[i] = Option{Value: z, Label: ZoneLabel(z, now), Selected: z == zone}
	}
	slices.SortFunc(out, func(a, b Option) int { return strings.Compare(a.Label, b.Label) })
	return out
}

// PlaceTime names a zone's time by its place: "New York time", "UTC".
func PlaceTime(zone string) string {
	if zone == "UTC" {
		return "UTC"
	}
	return strings.ReplaceAll(zone[strings.LastIndexByte(zone, '/')+1:], "_", " ") + " time"
}

// ZoneLabel is a zone as a place and its offset at now: "New York
// (UTC−04:00)", "UTC".
func ZoneLabel(zone string, now time.Time) string {
	if zone == "UTC" {
		return "UTC"
	}
	place := zone[strings.LastIndexByte(zone, '/')+1:]
	place = strings.ReplaceAll(place, "_", " ")
	_, off := now.In(Location(zone)).Zone()
	sign := "+"
	if off < 0 {
		sign, off = "−", -off
	}
	return fmt.Sprintf("%s (UTC%s%02d:%02d)", place, sign, off/3600, off%3600/60)
}
