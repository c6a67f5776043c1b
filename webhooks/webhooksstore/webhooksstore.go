// Package webhooksstore holds types only an implementer of
// webhooks.Store needs, off webhooks' page (which is the host's): how a
// claim of due deliveries is narrowed by subscription. The others its
// methods name (a delivery, a subscription, an event) are the host's too
// and stay in webhooks.
package webhooksstore

// ClaimPick narrows a claim (the ClaimChosen method of webhooks.Store)
// by subscription: the delivery loop paces each endpoint with it.
type ClaimPick struct {
	// Skip names the subscriptions none of whose deliveries are read.
	Skip []int64
	// Scan is the most due deliveries read.
	Scan int
	// Choose returns the IDs, of those it is shown, to claim. It runs
	// between the claim's read and its write, so it must return at once.
	Choose func(due []DueDelivery) []int64
}

// DueDelivery is a due delivery as a claim reads it.
type DueDelivery struct {
	ID             int64
	SubscriptionID int64
}
