package webhooks

import (
	"sync"
	"time"

	"github.com/groundwork-go/groundwork/webhooks/webhooksstore"
)

// Pacing of the delivery loop's endpoints (RunDeliveries).
const (
	// slowAttempt is how long an answer may take and still count as
	// quick: a slower success does not widen its endpoint's window.
	slowAttempt = time.Second
	// asideAfter is how long an attempt is under way before it leaves
	// its slot for the room aside.
	asideAfter = 250 * time.Millisecond
	// restFirst is how long an endpoint rests after a failed attempt,
	// doubling with each failure in a row up to restMost.
	restFirst = time.Second
	restMost  = time.Minute
	// paceForget is how long an endpoint with nothing under way keeps its
	// pace before the loop forgets it (and it starts again at one):
	// longer than restMost, so a resting endpoint keeps its streak.
	paceForget = 2 * restMost
	// scanFactor times the claim's limit is how many due deliveries a
	// claim reads to choose from.
	scanFactor = 4
)

// pacer bounds the attempts under way to each endpoint (subscription),
// so that endpoints that hang or fail cannot take the loop's slots, or
// the database's time, from the others.
//
// Each endpoint has a window, the most attempts it may have under way: it
// starts at one, doubles with each quick success (up to the loop's
// MaxInFlight), halves with a slow one and falls back to one with a
// failure. After a failure the endpoint rests, none of its deliveries
// claimed, for a second, doubling with each failure in a row up to a
// minute; then one attempt tells whether it is back.
//
// Attempts to suspect endpoints (whose last attempt failed), and attempts
// under way for longer than asideAfter, do not hold the loop's slots:
// they have a room of their own, half as large, so the healthy endpoints
// keep every slot however many endpoints go bad at once.
type pacer struct {
	max   int // the widest window, the loop's MaxInFlight
	aside int // the room for suspect and slow attempts
	ended chan struct{}

	mu        sync.Mutex
	endpoints map[int64]*pace
	asideNow  int // suspect and slow attempts under way
	swept     time.Time
}

// pace is one endpoint's state.
type pace struct {
	window   int
	underWay int
	failures int       // failed attempts in a row
	rest     time.Time // no attempt before this
	last     time.Time // when the last attempt began or ended
}

func (e *pace) suspect() bool { return e.failures > 0 }

// attemptPace is one attempt as the pacer sees it.
type attemptPace struct {
	sub   int64
	aside bool // in the room aside, not in a slot of the loop's
	ended bool
}

func newPacer(maxInFlight int) *pacer {
	return &pacer{max: maxInFlight, aside: max(maxInFlight/2, 1), ended: make(chan struct{}, 1),
		endpoints: map[int64]*pace{}}
}

// pick returns the claim's choice, at now, of up to slots deliveries to
// healthy endpoints and as many to suspect ones as the room aside has
// left; the most it may choose in all; and whether it held due
// deliveries back (so that an attempt's end should wake the loop: its
// endpoint may have room again).
func (p *pacer) pick(slots int, now time.Time) (webhooksstore.ClaimPick, int, *bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var skip []int64
	room := p.aside - p.asideNow
	for id, e := range p.endpoints {
		if e.underWay >= e.window || now.Before(e.rest) || (e.suspect() && room <= 0) {
			skip = append(skip, id)
		}
	}
	held := len(skip) > 0
	choose := func(due []webhooksstore.DueDelivery) []int64 {
		p.mu.Lock()
		defer p.mu.Unlock()
		taken := map[int64]int{}
		healthy, suspects := slots, p.aside-p.asideNow
		out := make([]int64, 0, min(slots+max(suspects, 0), len(due)))
		for _, d := range due {
			if healthy <= 0 && suspects <= 0 {
				held = true
				break
			}
			window, underWay, suspect := 1, 0, false
			if e := p.endpoints[d.SubscriptionID]; e != nil {
				window, underWay, suspect = e.window, e.underWay, e.suspect()
			}
			left := &healthy
			if suspect {
				left = &suspects
			}
			if underWay+taken[d.SubscriptionID] >= window || *left <= 0 {
				held = true
				continue
			}
			taken[d.SubscriptionID]++
			*left--
			out = append(out, d.ID)
		}
		return out
	}
	return webhooksstore.ClaimPick{Skip: skip, Scan: (slots + max(room, 0)) * scanFactor, Choose: choose}, slots + max(room, 0), &held
}

// begin counts an attempt to the endpoint as under way: in the room
// aside when the endpoint is suspect (a.aside), else in one of the loop's
// slots.
func (p *pacer) begin(sub int64, now time.Time) *attemptPace {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.endpoints[sub]
	if e == nil {
		e = &pace{window: 1}
		p.endpoints[sub] = e
	}
	e.underWay++
	e.last = now
	a := &attemptPace{sub: sub, aside: e.suspect()}
	if a.aside {
		p.asideNow++
	}
	return a
}

// slow moves an attempt that has been under way for asideAfter out of
// its slot into the room aside, if there is room, and reports whether it
// did (the caller frees the slot).
func (p *pacer) slow(a *attemptPace) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a.ended || a.aside || p.asideNow >= p.aside {
		return false // (ended: the timer that calls this may fire as it ends)
	}
	a.aside = true
	p.asideNow++
	return true
}

// end records how an attempt went (OutcomeNone: no request was made, as
// when the delivery was postponed by the endpoint's rate limit or parked)
// and how long it took, and wakes a loop waiting for room.
func (p *pacer) end(a *attemptPace, o Outcome, took time.Duration, now time.Time) {
	p.mu.Lock()
	e := p.endpoints[a.sub]
	a.ended = true
	if a.aside {
		p.asideNow--
	}
	e.underWay--
	e.last = now
	switch {
	case o == OutcomeFailure:
		e.window = 1
		e.failures++
		e.rest = now.Add(min(restFirst<<min(e.failures-1, 16), restMost))
	case o == OutcomeNone:
	case took >= slowAttempt:
		e.window, e.failures = max(e.window/2, 1), 0
	default:
		e.window, e.failures = min(e.window*2, p.max), 0
	}
	if now.Sub(p.swept) >= paceForget {
		p.swept = now
		for id, e := range p.endpoints {
			if e.underWay == 0 && now.Sub(e.last) >= paceForget { // its rest is over by then
				delete(p.endpoints, id)
			}
		}
	}
	p.mu.Unlock()
	select {
	case p.ended <- struct{}{}:
	default:
	}
}
