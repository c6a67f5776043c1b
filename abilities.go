package groundwork

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
}

// Capabilities a signed-in user may hold beside the token abilities
// (which a user may hold too): the names the pages check.
var Capabilities = []Ability{
	{"view_search_reporting", "reporting", "See the reports page."},
	{"manage-emailmarketing-feeds", "emaillist", "Manage the email-list feeds from a signed-in session."},
}
