package webhooks

import (
	"context"
	"fmt"
	"slices"

	"github.com/groundwork-go/groundwork/internal/api"
)

// Channels narrow an endpoint to part of its owner's events, as Svix's do:
// an event may carry channel labels (one store of a merchant: "store-12"),
// and an endpoint with channels receives only the events that carry one of
// them. An endpoint without channels receives its events whatever their
// channels.
const (
	// MaxChannels caps an endpoint's channels, and an event's.
	MaxChannels = 10
	// MaxChannelLength caps a channel's name.
	MaxChannelLength = 128
)

// Channeled is an event that names its channels (Event does, with its
// Channels field).
type Channeled interface {
	WebhookChannels() []string
}

// WebhookChannels implements Channeled.
func (e Event) WebhookChannels() []string { return e.Channels }

type channelsKey struct{}

// WithChannels returns ctx under which Dispatch and DispatchTx give each
// event these channels too (beside its own, Channeled): for events
// dispatched by a domain linked to webhooks, under a request the host
// knows the channel of.
func WithChannels(ctx context.Context, channels ...string) context.Context {
	return context.WithValue(ctx, channelsKey{}, slices.Clone(channels))
}

// eventChannels are the channels of event under ctx, each once, checked.
func eventChannels(ctx context.Context, event any) ([]string, error) {
	var out []string
	if c, ok := event.(Channeled); ok {
		out = append(out, c.WebhookChannels()...)
	}
	if c, ok := ctx.Value(channelsKey{}).([]string); ok {
		out = append(out, c...)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > MaxChannels {
		return nil, fmt.Errorf("%w: an event has at most %d channels", ErrChannel, MaxChannels)
	}
	for _, c := range out {
		if !validChannel(c) {
			return nil, fmt.Errorf("%w: %q", ErrChannel, c)
		}
	}
	return out, nil
}

// ErrChannel is a channel that cannot be one.
var ErrChannel = fmt.Errorf("webhooks: a channel is 1 to %d letters, digits, '-', '_', '.' or ':'", MaxChannelLength)

// validChannel reports whether c can name a channel.
func validChannel(c string) bool {
	if c == "" || len(c) > MaxChannelLength {
		return false
	}
	for _, r := range c {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == ':') {
			return false
		}
	}
	return true
}

// checkChannels validates an endpoint's channels onto v: each once, in
// order.
func checkChannels(in []string, v *api.Validator) []string {
	if len(in) > MaxChannels {
		v.Add("channels", api.MsgMaxItems("channels", MaxChannels))
		return nil
	}
	out := make([]string, 0, len(in))
	for i, c := range in {
		if !validChannel(c) {
			v.Add(fmt.Sprintf("channels.%d", i), fmt.Sprintf("A channel is 1 to %d letters, digits, '-', '_', '.' or ':'.", MaxChannelLength))
			continue
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}
