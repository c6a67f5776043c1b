package groundwork

// Meter counts what the services do, for metrics. A host hands one to
// each service's options (the metrics package's, which keeps Prometheus
// series, or its own); nil counts nothing. The services name what they
// count with the Metric constants, each with its labels' values in the
// order the constant's comment gives. A Meter is called on hot paths and
// from many goroutines: it must be cheap and safe for concurrent use.
type Meter interface {
	// Add adds n to the counter name.
	Add(name string, n float64, labels ...string)
	// Observe records v in the histogram name.
	Observe(name string, v float64, labels ...string)
}

// What the services count. Outcome values are the lower-case words given.
const (
	// MetricSignIns counts sign-in attempts by outcome: success, failure
	// (wrong credentials) or locked_out (refused before any password was
	// checked).
	MetricSignIns = "groundwork_auth_sign_ins_total"
	// MetricSubmissions counts stored form submissions by outcome:
	// accepted or spam.
	MetricSubmissions = "groundwork_forms_submissions_total"
	// MetricBookings counts booking attempts by outcome: created or
	// conflict (the time was taken meanwhile).
	MetricBookings = "groundwork_bookings_total"
	// MetricDeliveries counts webhook delivery attempts by outcome:
	// delivered, retrying, failed (no attempts left) or parked (the
	// subscription is off).
	MetricDeliveries = "groundwork_webhook_deliveries_total"
	// MetricDeliveryLag observes, in seconds, how long a delivered event
	// waited from its creation to the answer that delivered it.
	MetricDeliveryLag = "groundwork_webhook_delivery_lag_seconds"
	// MetricInbound counts inbound webhook events by provider and
	// outcome: verified, refused (bad signature or timestamp) or
	// duplicate (seen before).
	MetricInbound = "groundwork_inbound_events_total"
	// MetricViews counts analytics page views and events by stage:
	// buffered (taken), flushed (written) or refused (too many waiting).
	MetricViews = "groundwork_analytics_views_total"
)

// Count adds 1 to the counter name on m; nothing when m is nil.
func Count(m Meter, name string, labels ...string) {
	if m != nil {
		m.Add(name, 1, labels...)
	}
}
