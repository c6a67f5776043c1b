package web

import "github.com/groundwork-go/groundwork"

// Via is a visit's origin in a few words, for a row of a list: "via
// newsletter, campaign november"; "" when not known.
func Via(v *groundwork.Visit) string {
	if v == nil || v.Source == "" {
		return ""
	}
	via := "via " + v.Source
	if v.Campaign != "" {
		via += ", campaign " + v.Campaign
	}
	return via
}
