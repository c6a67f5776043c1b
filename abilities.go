package groundwork

import (
	"slices"
	"strings"

	"github.com/groundwork-go/groundwork/internal/suggest"
)

// Ability is one thing a bearer token may be granted, or a signed-in user
// may hold as a capability: its wire name, the domain whose routes check
// it, and what it allows, in a sentence a person granting it can read.
type Ability struct {
	Name        string
	Domain      string
	Description string
}

// Abilities is the one table of the abilities the domains' routes check,
// by domain, with the wire names the routes use. A token granted "*" has
// all of them; one granted "forms:*" (or "webhookSubscription.*") every
// ability of that prefix (see [Can]). Each domain names its own as
// constants (forms.AbilityCreate, say); the table is what a page or a
// command shows to whoever grants them.
var Abilities = []Ability{
	{"forms:viewAny", "forms", "List the forms."},
	{"forms:view", "forms", "Read a form with its fields, steps and notifications."},
	{"forms:create", "forms", "Create forms."},
	{"forms:update", "forms", "Change forms, their fields and steps, and submissions."},
	{"forms:delete", "forms", "Delete forms."},
	{"forms:viewSubmissions", "forms", "Read and export the answers people sent, and their uploads."},
	{"forms:manageNotifications", "forms", "Set up the emails a submission sends."},
	{"webhookSubscription.viewAny", "webhooks", "List the webhook subscriptions."},
	{"webhookSubscription.view", "webhooks", "Read a subscription and its deliveries."},
	{"webhookSubscription.create", "webhooks", "Create webhook subscriptions."},
	{"webhookSubscription.update", "webhooks", "Change webhook subscriptions."},
	{"webhookSubscription.delete", "webhooks", "Delete webhook subscriptions."},
	{"webhookSubscription.replay", "webhooks", "Send deliveries again."},
	{"a11y:ai", "a11y", "Use the AI accessibility reviews (they cost money)."},
	{"bookings:view", "bookings", "List and read bookings, with the customers' details."},
	{"bookings:confirm", "bookings", "Confirm requested bookings."},
	{"bookings:cancel", "bookings", "Cancel bookings."},
	{"bookings:complete", "bookings", "Mark bookings completed."},
	{"bookings:no-show", "bookings", "Mark bookings as no-shows."},
	{"bookings:reschedule", "bookings", "Move bookings to another time."},
	{"bookings:reassign", "bookings", "Give bookings to another provider."},
	{"bookings:reissue", "bookings", "Send a customer a new manage link."},
	{"bookings:manage", "bookings", "Set up services, providers, hours and blackouts."},
	{"emailmarketing:feeds", "emaillist", "Set up the feeds that add people to email lists."},
	{"reporting:view", "reporting", "Read the search and analytics reports."},
	{"reporting:manage", "reporting", "Make and remove the analytics goals."},
}

// BindingAbilities are abilities that carry a value after their name:
// "webhookOwner:acct_1" binds a token to the webhooks owner acct_1 (see
// webhooks.OwnerAbilityPrefix). They grant nothing by themselves; they
// narrow what the token's other abilities reach.
var BindingAbilities = []Ability{
	{"webhookOwner:", "webhooks", "Bind the token to one owner's webhook subscriptions (webhookOwner:<owner>): it sees and changes that owner's alone."},
}

// Capabilities a signed-in user may hold beside the token abilities
// (which a user may hold too): the names the pages check.
var Capabilities = []Ability{
	{"view_search_reporting", "reporting", "See the reports page."},
	{"manage_reporting", "reporting", "Make and remove the analytics goals from a signed-in session."},
	{"manage-emailmarketing-feeds", "emaillist", "Manage the email-list feeds from a signed-in session."},
	{"manage-users", "auth", "See the users page: disable and enable users, sign them out everywhere, turn off their two-factor sign-in."},
}

// KnownAbility reports whether a token may be granted name: "*", an
// ability of Abilities or of own (a host's own routes' names), a binding
// with its value ("webhookOwner:acct_1", BindingAbilities), or a
// wildcard over a prefix ("forms:*", "webhookSubscription.*") that covers
// at least one of them.
func KnownAbility(name string, own ...string) bool {
	if name == "*" {
		return true
	}
	for _, b := range BindingAbilities {
		if v, ok := strings.CutPrefix(name, b.Name); ok && v != "" && !strings.Contains(v, "*") {
			return true
		}
	}
	known := knownNames(own)
	if slices.Contains(known, name) {
		return true
	}
	prefix, wild := strings.CutSuffix(name, "*")
	if !wild || !strings.HasSuffix(prefix, ":") && !strings.HasSuffix(prefix, ".") {
		return false
	}
	return slices.ContainsFunc(known, func(k string) bool { return strings.HasPrefix(k, prefix) })
}

// NearestAbility is the known ability (or wildcard) whose name is closest
// to name, for a message that says what was likely meant: within the
// domain name starts with when it names one ("webhooks:*" is
// "webhookSubscription.*"), else among all; "" when none is near (more
// than half of name would change).
func NearestAbility(name string, own ...string) string {
	candidates := knownNames(own)
	if i := strings.IndexAny(name, ":."); i > 0 {
		var inDomain []string
		for _, a := range Abilities {
			if strings.EqualFold(a.Domain, name[:i]) {
				inDomain = append(inDomain, a.Name)
			}
		}
		if len(inDomain) > 0 {
			candidates = inDomain
		}
	}
	var withWildcards []string
	for _, known := range candidates {
		withWildcards = append(withWildcards, known, wildcardOf(known))
	}
	best, d := suggest.Closest(name, withWildcards)
	if d > len(name)/2 && len(candidates) == len(knownNames(own)) {
		return ""
	}
	return best
}

// knownNames are the table's names and own.
func knownNames(own []string) []string {
	out := make([]string, 0, len(Abilities)+len(own))
	for _, a := range Abilities {
		out = append(out, a.Name)
	}
	return append(out, own...)
}

// wildcardOf is the wildcard that covers name and its siblings:
// "forms:*" for "forms:create", "webhookSubscription.*" for
// "webhookSubscription.view"; name itself without a separator.
func wildcardOf(name string) string {
	if i := strings.IndexAny(name, ":."); i >= 0 {
		return name[:i+1] + "*"
	}
	return name
}
