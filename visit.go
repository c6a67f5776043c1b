package groundwork

import (
	"context"
	"sync"
)

// Visit is where a visit came from, as the site's analytics counted it:
// the first page view of the visitor's session that day. A submission or
// a booking made in the visit keeps it (forms.Submission.Visit,
// bookings.Booking.Visit), so its owner sees which campaign brought it.
// It holds only what the analytics keeps of every view, nothing of the
// visitor.
type Visit struct {
	// Source is the visit's utm_source, else the referrer's host, else
	// "Direct".
	Source string `json:"source"`
	// Medium and Campaign are the landing page's utm_medium and
	// utm_campaign ("" where it had none).
	Medium   string `json:"medium,omitempty"`
	Campaign string `json:"campaign,omitempty"`
	// Landing is the path the visit began on ("/pricing").
	Landing string `json:"landing"`
	// Country is the visitor's ISO 3166 country code, where the analytics
	// knows it.
	Country string `json:"country,omitempty"`
}

// visitFinder finds a request's visit once, however often it is asked.
type visitFinder struct {
	once  sync.Once
	find  func(context.Context) (Visit, bool)
	visit Visit
	ok    bool
}

type visitKey struct{}

// WithVisit is ctx able to tell the visit its request belongs to: find is
// asked at most once, the first time VisitOf is (a request that makes
// nothing never reads the analytics). reporting.CarryVisitor and
// reporting.Analytics.TrackViews put it there for the analytics'
// visitor.
func WithVisit(ctx context.Context, find func(context.Context) (Visit, bool)) context.Context {
	return context.WithValue(ctx, visitKey{}, &visitFinder{find: find})
}

// VisitOf is the visit ctx's request belongs to; false when ctx carries
// no finder (WithVisit) or the analytics has not seen the visitor.
func VisitOf(ctx context.Context) (Visit, bool) {
	f, ok := ctx.Value(visitKey{}).(*visitFinder)
	if !ok {
		return Visit{}, false
	}
	f.once.Do(func() { f.visit, f.ok = f.find(ctx) })
	return f.visit, f.ok
}
