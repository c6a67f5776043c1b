package emaillist

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/store"
	"github.com/groundwork-go/groundwork/tenant"
)

// Limits of a feed's fields.
const (
	// MaxNameLength caps a feed's name and a field map's values.
	MaxNameLength = 255
	// MaxFields and MaxFieldLength cap a subscribe request's fields.
	MaxFields      = 32
	MaxFieldLength = 2048
	// MaxRequestTags caps a subscribe request's tags; maxTagsPerJob the
	// tags one job applies.
	MaxRequestTags = 20
	maxTagsPerJob  = 50
	// MaxEmailLength caps an email address.
	MaxEmailLength = 255
)

// Options configures [NewService]. Nil means the defaults.
type Options struct {
	// Provider carries out the queued subscribes ([RegisterWorkers] needs
	// it).
	Provider Provider
	// FormExists, when set, tells whether the host has a form with this
	// ID: a feed for a form it does not have is refused (422 on form_id).
	// Without it any form ID is taken (email lists do not know forms).
	FormExists func(ctx context.Context, formID int64) (bool, error)
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Logger receives unexpected errors and skipped feeds; nil discards.
	Logger *slog.Logger
}

// Service is the email-list domain. Safe for concurrent use.
type Service struct {
	store Store
	enq   store.Enqueuer
	o     Options
	hooks registered
	// batch shares the inserts of subscribes made at the same time.
	batch store.Enqueuer
}

// NewService returns the service on st; enq queues the subscribe jobs (a
// *store.Queue), and public subscribes made at the same time share one
// insert (store.BatchEnqueuer). opts may be nil.
func NewService(st Store, enq store.Enqueuer, opts *Options) (*Service, error) {
	if st == nil || enq == nil {
		return nil, errors.New("emaillist: new service: a store and an Enqueuer are required")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{store: st, enq: enq, o: o, batch: store.NewBatchEnqueuer(enq)}, nil
}

// Store is the service's store.
func (s *Service) Store() Store { return s.store }

// ValidateFeed checks a feed against its rules: form_id ≥ 1, a
// name of at most 255 characters, list ids ≥ 1, a field map with
// email_address and values of at most 255 characters, known match values
// and operators.
func ValidateFeed(f Feed) error {
	v := &api.Validator{}
	if f.FormID < 1 {
		v.Add("form_id", api.MsgMin("form_id", 1))
	}
	switch {
	case f.Name == "":
		v.Add("name", api.MsgRequired("name"))
	case len([]rune(f.Name)) > MaxNameLength:
		v.Add("name", api.MsgMaxChars("name", MaxNameLength))
	}
	if f.ListFormID != nil && *f.ListFormID < 1 {
		v.Add("list_form_id", api.MsgMin("list_form_id", 1))
	}
	for i, id := range f.ListTagIDs {
		if id < 1 {
			v.Add(fmt.Sprintf("list_tag_ids.%d", i), api.MsgMin(fmt.Sprintf("list_tag_ids.%d", i), 1))
		}
	}
	switch {
	case len(f.FieldMap) == 0:
		v.Add("field_map", api.MsgRequired("field_map"))
	case f.FieldMap[DestEmail] == "":
		v.Add("field_map", "The field map field must contain entries for: email_address.")
	}
	for _, dest := range slices.Sorted(maps.Keys(f.FieldMap)) {
		key := "field_map." + dest
		if slug := f.FieldMap[dest]; slug == "" && dest != DestEmail {
			v.Add(key, api.MsgRequired(key))
		} else if len([]rune(slug)) > MaxNameLength {
			v.Add(key, api.MsgMaxChars(key, MaxNameLength))
		}
	}
	if l := f.ConditionalLogic; l != nil {
		if l.Match != MatchAll && l.Match != MatchAny {
			v.Add("conditional_logic.match", api.MsgSelected("conditional_logic.match"))
		}
		for i, c := range l.Conditions {
			prefix := "conditional_logic.conditions." + strconv.Itoa(i)
			if c.Field == "" {
				v.Add(prefix+".field", api.MsgRequired(prefix+".field"))
			}
			if !slices.Contains(Operators, c.Operator) {
				v.Add(prefix+".operator", api.MsgSelected(prefix+".operator"))
			}
			switch c.Value.(type) {
			case nil, string, float64, bool, int, int64:
			default:
				v.Add(prefix+".value", "The "+api.Attr(prefix+".value")+" field must be a string, a number, true, false or null.")
			}
		}
	}
	return v.Err()
}

// CreateFeed validates f and stores it; a name the form's other feed has
// is a *ValidationError on name.
func (s *Service) CreateFeed(ctx context.Context, f Feed) (Feed, error) {
	if err := s.validate(ctx, f); err != nil {
		return Feed{}, err
	}
	now := s.o.Now().UTC()
	f.ID, f.CreatedAt, f.UpdatedAt = 0, now, now
	if f.ListTagIDs == nil {
		f.ListTagIDs = []int64{}
	}
	created, err := s.store.CreateFeed(ctx, f)
	return created, s.storeErr("create feed", err)
}

// UpdateFeed validates f and writes every field of it (found by ID).
func (s *Service) UpdateFeed(ctx context.Context, f Feed) (Feed, error) {
	if _, err := s.Feed(ctx, f.ID); err != nil {
		return Feed{}, err
	}
	if err := s.validate(ctx, f); err != nil {
		return Feed{}, err
	}
	f.UpdatedAt = s.o.Now().UTC()
	if f.ListTagIDs == nil {
		f.ListTagIDs = []int64{}
	}
	updated, err := s.store.UpdateFeed(ctx, f)
	return updated, s.storeErr("update feed", err)
}

// MsgFormInvalid answers a feed for a form the host does not have.
const MsgFormInvalid = "The selected form id is invalid."

// validate is ValidateFeed, then the host's word on the form.
func (s *Service) validate(ctx context.Context, f Feed) error {
	if err := ValidateFeed(f); err != nil {
		return err
	}
	if s.o.FormExists == nil {
		return nil
	}
	ok, err := s.o.FormExists(ctx, f.FormID)
	if err != nil {
		return fmt.Errorf("emaillist: look up form %d: %w", f.FormID, err)
	}
	if !ok {
		return api.Invalid("form_id", MsgFormInvalid)
	}
	return nil
}

func (s *Service) storeErr(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNameTaken):
		return api.Invalid("name", "The name has already been taken by another feed.")
	}
	return fmt.Errorf("emaillist: %s: %w", what, err)
}

// Feed returns a feed, or ErrNotFound (also when ctx acts for a tenant
// whose form it is not: see package tenant).
func (s *Service) Feed(ctx context.Context, id int64) (Feed, error) {
	f, err := s.store.Feed(ctx, id)
	if err == nil {
		var seen bool
		if seen, err = s.visible(ctx, f); err == nil && !seen {
			err = ErrNotFound
		}
	}
	return f, s.storeErr("feed", err)
}

// visible reports whether ctx may see f: it acts for every tenant, or
// f's form is one of its tenant's (a feed is its form's tenant's, and
// FormExists answers for the tenant ctx acts for).
func (s *Service) visible(ctx context.Context, f Feed) (bool, error) {
	if _, scoped := tenant.Of(ctx); !scoped || s.o.FormExists == nil {
		return true, nil
	}
	return s.o.FormExists(ctx, f.FormID)
}

// ListFeeds returns the feeds of a form (every form when 0), by ID: of
// the tenant's forms when ctx acts for one.
func (s *Service) ListFeeds(ctx context.Context, formID int64) ([]Feed, error) {
	list, err := s.store.ListFeeds(ctx, FeedQuery{FormID: formID})
	if err != nil {
		return nil, s.storeErr("list feeds", err)
	}
	seen := map[int64]bool{}
	out := list[:0]
	for _, f := range list {
		ok, known := seen[f.FormID]
		if !known {
			if ok, err = s.visible(ctx, f); err != nil {
				return nil, s.storeErr("list feeds", err)
			}
			seen[f.FormID] = ok
		}
		if ok {
			out = append(out, f)
		}
	}
	return out, nil
}

// DeleteFeed deletes a feed (subscribers already at the provider stay);
// ErrNotFound.
func (s *Service) DeleteFeed(ctx context.Context, id int64) error {
	if _, err := s.Feed(ctx, id); err != nil {
		return err
	}
	return s.storeErr("delete feed", s.store.DeleteFeed(ctx, id))
}

// Reasons a feed does not send.
const (
	ReasonConditionalLogic = "conditional_logic"
	ReasonFieldMap         = "field_map"
)

// DryRun is what f would send for values: nothing when its logic does
// not match ("conditional_logic") or the map cannot be applied
// ("field_map"; the cause is logged, not shown), else the payload.
func (s *Service) DryRun(ctx context.Context, f Feed, values map[string]any) DryRun {
	if !f.ConditionalLogic.Matches(values) {
		reason := ReasonConditionalLogic
		return DryRun{Reason: &reason}
	}
	p, err := MapFields(f.FieldMap, values)
	if err != nil {
		s.o.Logger.WarnContext(ctx, "emaillist: dry-run: field map", "feed", f.ID, "error", err)
		reason := ReasonFieldMap
		return DryRun{Reason: &reason}
	}
	return DryRun{WouldSend: true, Payload: &p}
}

// Subscribe queues a subscribe (spec A2). With FeedID the feed must be
// active (an unknown or inactive one is the same *ValidationError on
// feed_id as any other mistake, so ids cannot be probed); its list form
// is used and its tags come first, then the request's, de-duplicated.
// Without, ListFormID is used as given. The job is queued at once (calls
// made together share one insert); [Service.SubscribeTx] queues it in the
// caller's transaction.
func (s *Service) Subscribe(ctx context.Context, r SubscribeRequest) error {
	return s.subscribe(ctx, nil, r)
}

// SubscribeTx is Subscribe inside the caller's transaction: the job
// commits or rolls back with it. tx must not be nil.
func (s *Service) SubscribeTx(ctx context.Context, tx *sql.Tx, r SubscribeRequest) error {
	if tx == nil {
		return errors.New("emaillist: SubscribeTx needs a transaction")
	}
	return s.subscribe(ctx, tx, r)
}

func (s *Service) subscribe(ctx context.Context, tx *sql.Tx, r SubscribeRequest) error {
	if err := r.validate(); err != nil {
		return err
	}
	sub := Subscription{Email: r.Email, FirstName: r.FirstName, ListFormID: r.ListFormID, TagIDs: r.Tags}
	if len(r.Fields) > 0 {
		sub.Fields = make(map[string]any, len(r.Fields))
		for k, v := range r.Fields {
			if v == nil {
				sub.Fields[k] = nil
			} else {
				sub.Fields[k] = *v
			}
		}
	}
	var feedID int64
	if r.FeedID != nil {
		f, err := s.store.Feed(ctx, *r.FeedID)
		if errors.Is(err, ErrNotFound) || err == nil && !f.IsActive {
			return api.Invalid("feed_id", MsgFeedInvalid)
		}
		if err != nil {
			return fmt.Errorf("emaillist: subscribe: %w", err)
		}
		feedID, sub.ListFormID = f.ID, f.ListFormID
		sub.TagIDs = mergeTags(f.ListTagIDs, r.Tags)
	}
	return s.enqueue(ctx, tx, SubscribeArgs{Subscription: sub, FeedID: feedID})
}

// MsgFeedInvalid is the one answer to an unknown or inactive feed_id.
const MsgFeedInvalid = "The feed id field is invalid."

func mergeTags(lists ...[]int64) []int64 {
	out := []int64{}
	for _, list := range lists {
		for _, id := range list {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// enqueue queues args in tx, or in the next batch when tx is nil (the
// two halves of Subscribe and SubscribeTx).
func (s *Service) enqueue(ctx context.Context, tx *sql.Tx, args SubscribeArgs) error {
	var err error
	if tx != nil {
		err = s.enq.EnqueueTx(ctx, tx, args, nil)
	} else {
		err = s.batch.Enqueue(ctx, args, nil)
	}
	if err != nil {
		return fmt.Errorf("emaillist: queue subscribe: %w", err)
	}
	return nil
}

// QueueSubmission feeds an accepted form submission to the form's active
// feeds (read in tx, the submission's transaction, taking no second
// connection): for each, the logic is evaluated, the fields mapped and a
// subscribe queued in tx. A feed that does not send is reported by a
// FeedSkipped event with the reason and never stops the others; only a
// failure to queue is returned.
func (s *Service) QueueSubmission(ctx context.Context, tx *sql.Tx, sub Submission) error {
	submissionID, values := sub.ID, sub.Values
	feeds, err := s.store.ListFeedsTx(ctx, tx, FeedQuery{FormID: sub.FormID, ActiveOnly: true})
	if err != nil {
		return fmt.Errorf("emaillist: feeds of form %d: %w", sub.FormID, err)
	}
	for _, f := range feeds {
		if !f.ConditionalLogic.Matches(values) {
			s.skip(ctx, f, submissionID, ReasonConditionalLogic)
			continue
		}
		p, err := MapFields(f.FieldMap, values)
		if err != nil {
			s.skip(ctx, f, submissionID, ReasonFieldMap+":"+err.Error())
			continue
		}
		tags := mergeTags(f.ListTagIDs)
		if err := s.enqueue(ctx, tx, SubscribeArgs{FeedID: f.ID, SubmissionID: submissionID, Subscription: Subscription{
			Email: p.EmailAddress, FirstName: p.FirstName, Fields: p.Fields, TagIDs: tags, ListFormID: f.ListFormID,
			Referrer: sub.PageURL}}); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) skip(ctx context.Context, f Feed, submissionID int64, reason string) {
	s.o.Logger.InfoContext(ctx, "emaillist: feed skipped", "feed", f.ID, "submission", submissionID, "reason", reason)
	s.emit(ctx, Event{Type: EventFeedSkipped, FeedID: f.ID, SubmissionID: submissionID, Reason: reason})
}
