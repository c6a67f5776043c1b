package waitlist

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"

	gwmail "github.com/groundwork-go/groundwork/mail"
)

// offerMailArgs is the job that mails an offer to its customer, rendered
// when it runs from the entry as it is then: an offer taken or lapsed
// meanwhile sends nothing. Offer is the hex of the offer token's hash; the
// token is read sealed from the entry, never kept in the queue.
type offerMailArgs struct {
	Offer string `json:"offer"`
}

// Kind implements river.JobArgs.
func (offerMailArgs) Kind() string { return "bookings_waitlist_offer_mail" }

// InsertOpts gives the job mail.MaxAttempts tries.
func (offerMailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: gwmail.MaxAttempts}
}

type offerMailWorker struct {
	river.WorkerDefaults[offerMailArgs]
	svc *Service
}

func (w *offerMailWorker) Work(ctx context.Context, job *river.Job[offerMailArgs]) error {
	return w.svc.sendOffer(gwmail.WithMessageID(ctx, gwmail.JobMessageID(job.Kind, job.ID)), job.Args)
}

// NextRetry waits mail.RetryDelay after a failed try.
func (w *offerMailWorker) NextRetry(job *river.Job[offerMailArgs]) time.Time {
	return time.Now().Add(gwmail.RetryDelay(job.Attempt))
}

// sendOffer mails the offer args names, while it stands.
func (s *Service) sendOffer(ctx context.Context, args offerMailArgs) error {
	hash, err := hex.DecodeString(args.Offer)
	if err != nil {
		return river.JobCancel(fmt.Errorf("waitlist: offer mail: %w", err))
	}
	e, err := s.store.ByOffer(ctx, hash)
	if errors.Is(err, ErrNotFound) {
		return nil
	} else if err != nil {
		return fmt.Errorf("waitlist: offer mail: %w", err)
	}
	if e.Status != StatusOffered || e.OfferExpires == nil || !s.o.Now().Before(*e.OfferExpires) {
		return nil
	}
	token, err := s.sealer.Open(e.OfferSealed, sealContext(e.OfferHash))
	if err != nil {
		return river.JobCancel(fmt.Errorf("waitlist: offer mail: %w", err))
	}
	name := "your appointment"
	if svc, err := s.service(ctx, e.ServiceID); err == nil {
		name = svc.Name
	}
	loc := zone(e.TimeZone)
	link := strings.ReplaceAll(s.o.OfferURL, "{token}", token)
	text := fmt.Sprintf("Hello %s,\n\nA place has come free for %s on %s, the time you are waiting for.\n\n"+
		"It is kept for you until %s. Book it here:\n%s\n\nIf you do not, it goes to the next person waiting.\n",
		e.Name, name, e.Start.In(loc).Format(whenFormat), e.OfferExpires.In(loc).Format(whenFormat), link)
	msg := gwmail.Message{From: s.o.MailFrom, To: []string{e.Email}, Subject: "A place has come free: " + name, Text: text,
		Headers: map[string]string{"X-Groundwork-Waitlist": fmt.Sprint(e.ID)}}
	if err := s.o.Mailer.Send(ctx, msg); err != nil {
		if errors.Is(err, gwmail.ErrInvalidMessage) {
			return river.JobCancel(fmt.Errorf("waitlist: offer mail of entry %d: %w", e.ID, err))
		}
		return fmt.Errorf("waitlist: offer mail of entry %d: %w", e.ID, err)
	}
	return nil
}

// whenFormat writes a time for a customer, with its zone.
const whenFormat = "Monday 2 January 2006 at 15:04 MST"

// zone is the location named, UTC when it names none.
func zone(name string) *time.Location {
	if loc, err := time.LoadLocation(name); err == nil && name != "" {
		return loc
	}
	return time.UTC
}

// sweepArgs is the periodic job that lapses offers not taken and waits
// whose time has passed.
type sweepArgs struct{}

// Kind implements river.JobArgs.
func (sweepArgs) Kind() string { return "bookings_waitlist_sweep" }

// sweepInterval is how often the sweep runs; an offer lapses at most
// this late.
const sweepInterval = time.Minute

// sweepBatch is the most entries one sweep lapses.
const sweepBatch = 200

type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	svc *Service
}

func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	n, err := w.svc.Sweep(ctx, sweepBatch)
	if n > 0 && w.svc.o.Logger != nil {
		w.svc.o.Logger.DebugContext(ctx, "waitlist: lapsed", "count", n)
	}
	return err
}

// RegisterWorkers adds the waitlist's jobs to a queue's workers (see
// store.Queue.Workers): the offer mail and the sweep. Register before
// the queue starts.
func RegisterWorkers(workers *river.Workers, svc *Service) error {
	if svc == nil {
		return errors.New("waitlist: register workers: a service is required")
	}
	return errors.Join(river.AddWorkerSafely(workers, &offerMailWorker{svc: svc}),
		river.AddWorkerSafely(workers, &sweepWorker{svc: svc}))
}

// PeriodicJobs is the sweep, every minute; add it with
// store.Queue.AddPeriodicJobs. River runs it on the leader only (and each
// entry lapses once even if two ran at once).
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(sweepInterval),
		func() (river.JobArgs, *river.InsertOpts) { return sweepArgs{}, nil },
		&river.PeriodicJobOpts{ID: sweepArgs{}.Kind(), RunOnStart: true})}
}
