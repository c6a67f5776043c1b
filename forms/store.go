package forms

import (
	"context"
	"time"

	"github.com/groundwork-go/groundwork/forms/formsstore"
	"github.com/groundwork-go/groundwork/store"
)

// Store keeps forms and everything that belongs to them. Implementations:
// formssql (SQLite and Postgres); formstest.RunStoreTests pins the
// contract written here.
//
// Store is this domain's adapter seam, as a driver is River's: the one
// interface a storage engine implements, and the only way the service
// reaches its data. A host keeps the SQL adapter (on its own *sql.DB, SQLite
// or Postgres) unless it brings another engine; an adapter is complete when
// the conformance suite passes on it.
//
// Every method takes the IDs of the form it works in; a child (field,
// step, submission, notification) of another form is ErrNotFound. Times
// are stored in UTC to the microsecond; the caller sets them. Lists are in
// a stable order with the ID as tie-breaker.
//
// Every write to a form, its fields, steps or notifications (UpdateForm and
// the field, step and notification methods) increments Form.Version in the
// same transaction; a new form starts at version 1.
//
// The service begins the transactions its steps share with RunInTx
// (store.Transactor) and calls the store with the context it gives: a
// method called with that context runs inside that transaction, so a
// submission and the jobs and hooks it sets off commit together or not at
// all. Outside one, each method is atomic on its own.
//
// It is the union of two roles, the forms and their submissions, so a
// reader finds a method by what it is for.
type Store interface {
	store.Transactor
	FormStore
	SubmissionStore
}

// FormStore keeps the forms and what defines them: fields, steps and
// notifications.
type FormStore interface {
	// CreateForm stores f and sets its ID. A taken slug is ErrSlugTaken.
	CreateForm(ctx context.Context, f *Form) error
	// UpdateForm saves every column of f. ErrNotFound, ErrSlugTaken.
	UpdateForm(ctx context.Context, f *Form) error
	// DeleteForm deletes the form and all that belongs to it (its kept
	// uploads too), and returns
	// the blob keys of its uploads so the caller can remove the files.
	DeleteForm(ctx context.Context, id int64) (uploadKeys []string, err error)
	// Form returns the form with this id or, when id is zero, slug,
	// without its submission counts (they stay zero): resolving a form is
	// on every request's path.
	Form(ctx context.Context, id int64, slug string) (*Form, error)
	// FormWithFields returns the form with the given slug (or, when slug
	// is empty, the given ID) and its fields in order, as Form and Fields
	// would, in one read where the store can: what the public submit
	// endpoint needs on every request.
	FormWithFields(ctx context.Context, id int64, slug string) (*Form, []Field, error)
	// SubmissionCounts counts a form's submissions, and those unread.
	SubmissionCounts(ctx context.Context, formID int64) (total, unread int, err error)
	// ListForms returns a page of forms, newest first, with counts, and
	// the number of forms matching.
	ListForms(ctx context.Context, q formsstore.FormQuery) ([]Form, int, error)
	// SlugsLike returns the taken slugs that are base or base-<n>.
	SlugsLike(ctx context.Context, base string) ([]string, error)

	// Fields returns the form's fields by sort order.
	Fields(ctx context.Context, formID int64) ([]Field, error)
	// CreateField stores f last in its step and sets its ID and
	// SortOrder. A name taken in the form is ErrConflict.
	CreateField(ctx context.Context, f *Field) error
	// UpdateField saves f (its form, UUID and creation time excepted).
	UpdateField(ctx context.Context, f *Field) error
	DeleteField(ctx context.Context, formID, id int64) error
	// SetFieldOrder moves fields to new steps and sort orders at once.
	SetFieldOrder(ctx context.Context, formID int64, order []formsstore.FieldPlace) error

	// Steps returns the form's steps by sort order.
	Steps(ctx context.Context, formID int64) ([]Step, error)
	// CreateStep stores s last and sets its ID and SortOrder.
	CreateStep(ctx context.Context, s *Step) error
	UpdateStep(ctx context.Context, s *Step) error
	// DeleteStep deletes a step; its fields move to the end of step
	// moveTo (or to no step when nil), in one transaction.
	DeleteStep(ctx context.Context, formID, id int64, moveTo *int64) error
	// SetStepOrder gives the listed steps sort orders 1, 2, 3...
	SetStepOrder(ctx context.Context, formID int64, ids []int64) error

	// Notifications returns the form's notifications by ID.
	Notifications(ctx context.Context, formID int64) ([]Notification, error)
	CreateNotification(ctx context.Context, n *Notification) error
	UpdateNotification(ctx context.Context, n *Notification) error
	DeleteNotification(ctx context.Context, formID, id int64) error
}

// SubmissionStore keeps what people send: submissions with their values
// and uploads, kept uploads and saved partial answers, and the summaries
// and counts read from them.
type SubmissionStore interface {
	// CreateSubmission stores s with its values, uploads and Routed, and
	// sets their IDs. When s.FormVersion is not zero and is not the form's version
	// (or the form is gone), nothing is stored and the error is ErrStale;
	// a submission of a missing form is otherwise ErrNotFound.
	CreateSubmission(ctx context.Context, s *Submission) error
	// Submission returns a submission of the form with values and uploads.
	Submission(ctx context.Context, formID, id int64) (*Submission, error)
	// ListSubmissions returns a page of the form's submissions, newest
	// first, with values and uploads, and the number matching.
	ListSubmissions(ctx context.Context, q SubmissionQuery) ([]Submission, int, error)
	// Responded reports whether respondent has an accepted submission of
	// the form (one that takes one response a person).
	Responded(ctx context.Context, formID int64, respondent string) (bool, error)
	// ChoiceCounts counts the accepted (not spam) submissions of the form
	// by their answer to the field (a single choice): value → count.
	ChoiceCounts(ctx context.Context, formID int64, field string) (map[string]int64, error)
	// EachSubmission calls fn for every submission of the form, newest
	// first, reading in batches; it stops at fn's first error. Each
	// value carries its FieldName and DisplayValue (what an export
	// needs); its other fields, and the uploads, may be left out.
	EachSubmission(ctx context.Context, formID int64, fn func(*Submission) error) error
	// UpdateSubmission saves the flags, notes, Routed and UpdatedAt of s
	// (in the caller's transaction when ctx carries one).
	UpdateSubmission(ctx context.Context, s *Submission) error
	// SetPayment writes p on the form's submission id (its Status apart,
	// as the lists filter by it) when its payment's status is from ("":
	// it has none); otherwise nothing changes and the error is
	// ErrConflict. In the caller's transaction when ctx carries one. A
	// submission whose payment is unpaid holds no place: neither the
	// form's MaxResponses nor an option's quota counts it, nor is it its
	// respondent's one response.
	SetPayment(ctx context.Context, formID, id int64, from string, p *Payment) error
	// ReleaseSpam clears the spam flag of those of the listed submissions
	// of the form that have it, setting their UpdatedAt to at, and returns
	// the ids it cleared, ascending. Of two releases of one submission at
	// once, only one clears it.
	ReleaseSpam(ctx context.Context, formID int64, ids []int64, at time.Time) (released []int64, err error)
	// KeepUpload keeps the file of a submission that failed on another
	// field, for the visitor's next try (its blob stays where it is).
	KeepUpload(ctx context.Context, k KeptUpload) error
	// TakeUpload deletes and returns the form's kept upload with this id,
	// so it serves once; ErrNotFound when there is none.
	TakeUpload(ctx context.Context, formID int64, id string) (KeptUpload, error)
	// DropKeptUploads deletes the uploads kept since before before and
	// returns their blob keys.
	DropKeptUploads(ctx context.Context, before time.Time) (blobKeys []string, err error)
	// SavePartial stores p (a new one when p.ID is zero, setting it;
	// else replacing the form's partial with that ID whole: ErrNotFound
	// when it is gone).
	SavePartial(ctx context.Context, p *Partial) error
	// PartialByToken returns the form's partial whose token has this hash,
	// ErrNotFound when there is none (expired ones included: the caller
	// judges).
	PartialByToken(ctx context.Context, formID int64, tokenHash string) (*Partial, error)
	// Partials returns the form's partials, latest saved first, with
	// their answers and uploads.
	Partials(ctx context.Context, formID int64) ([]Partial, error)
	// DropExpiredPartials deletes the partials expired by at (their
	// ExpiresAt not after it) and returns the blob keys of their uploads.
	DropExpiredPartials(ctx context.Context, at time.Time) (blobKeys []string, err error)
	// Summarize reads what Summary shows of the form's accepted (not
	// spam; a paid form's once paid) submissions made in [q.From,
	// q.To), and of its saved responses first saved then.
	Summarize(ctx context.Context, q formsstore.SummaryQuery) (*AnswerStats, error)
	// SetSubmissionFlag sets a flag on the listed submissions of the form
	// and returns how many there were.
	SetSubmissionFlag(ctx context.Context, formID int64, ids []int64, flag Flag, value bool, at time.Time) (int, error)
	// DeleteSubmissions deletes the listed submissions of the form and
	// returns how many there were and the blob keys of their uploads.
	DeleteSubmissions(ctx context.Context, formID int64, ids []int64) (int, []string, error)
	// Upload returns an upload of a submission, with its submission's
	// FormID.
	Upload(ctx context.Context, submissionID, id int64) (*Upload, error)
}

// Partial is a response saved to finish later: the answers so far (by
// field name, as a submission's request carries them), the files given
// (whose blobs it keeps), the last step reached (1-based, in step order;
// 1 for a form without steps), found by the hash of its resume token.
type Partial struct {
	ID        int64               `json:"id"`
	FormID    int64               `json:"form_id"`
	TokenHash string              `json:"-"`
	Values    map[string][]string `json:"-"`
	Uploads   []IncomingFile      `json:"-"`
	LastStep  int                 `json:"last_step"`
	CreatedAt time.Time           `json:"created_at"`
	UpdatedAt time.Time           `json:"updated_at"`
	ExpiresAt time.Time           `json:"expires_at"`
}

// AnswerStats is what Store.Summarize reads: the accepted submissions in
// the range; by field, how many answered, the counts per value or item,
// the number statistics, the latest answers (newest first); and the saved
// responses first saved in the range by the last step they reached,
// those still kept (Saved) and those swept unsent (Abandoned).
type AnswerStats struct {
	Submissions int64
	Answered    map[string]int64
	Counts      map[string]map[string]int64
	Numbers     map[string]NumberStats
	Latest      map[string][]LatestAnswer
	Saved       map[int]int64
	Abandoned   map[int]int64
}

// NumberStats summarise a number field's answers.
type NumberStats struct {
	Count   int64   `json:"count"`
	Average float64 `json:"average"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
}

// LatestAnswer is one answer and when it was sent.
type LatestAnswer struct {
	Value string    `json:"value"`
	At    time.Time `json:"at"`
}

// SubmissionQuery selects a form's submissions; nil flags match both.
// Answers keep those whose answers hold every one of them.
type SubmissionQuery struct {
	FormID                    int64
	IsRead, IsSpam, IsStarred *bool
	Answers                   []AnswerFilter
	// Search keeps the submissions with an answer that contains it,
	// letters of either case (on SQLite, only ASCII letters match across
	// case); "" keeps every one.
	Search string
	// Payment keeps the submissions whose payment has this status
	// ("awaiting_payment", "paid", "unpaid"); with it, FormID 0 lists
	// every form's.
	Payment       string
	Offset, Limit int
}

// searchMaxLength is the longest search a list of submissions takes.
const searchMaxLength = 200

// AnswerFilter keeps the submissions whose answer to Field (of type
// Type) is Value, or, when AnyOf is set, one of AnyOf (an NPS group's
// scores); for a field of several answers (a checkbox group, a multiple
// select, a matrix's "row=column" answers), whose answers include Value;
// for a ranking, whose answers hold Value at place Rank (1 is first).
type AnswerFilter struct {
	Field, Value string
	Type         FieldType
	AnyOf        []string
	Rank         int
}

// Flag names a submission flag.
type Flag string

// The submission flags.
const (
	FlagRead    Flag = "is_read"
	FlagSpam    Flag = "is_spam"
	FlagStarred Flag = "is_starred"
)
