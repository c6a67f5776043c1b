// Package forms is forms for a web application: an admin REST API to build
// forms, fields, steps and notifications and to read, flag, export and
// delete submissions; a public API that renders a form and takes
// submissions with files; a plain HTML page per form that works without
// JavaScript; and notification emails sent from a job queue.
//
// # Pieces
//
// A [Service] holds the rules over a [Store] (package formssql on SQLite or
// Postgres). [NewHandler] serves the API of
// the forms API under /api/v1/forms, the admin routes only when it is given a
// TokenVerifier; [NewPageHandler] serves the page of each form at
// /forms/{slug}, which posts to itself. [RegisterWorkers] adds the
// notification job to a store.Queue.
//
// # The page
//
// The page works without JavaScript and carries none. A mistake comes
// back as the page (422) with the answers kept, each message beside its
// input (tied to it with aria-describedby) and a summary on top linking to
// each; a taken submission redirects (303) to the form's redirect_url, or
// back to the page, which thanks the visitor once, so a reload sends
// nothing again. Its templates and stylesheet are replaceable
// (PageOptions.Templates), and it passes axe-core with no violation.
//
// # Admin API
//
// Every admin route needs a bearer token whose abilities cover the route's
// policy: forms:viewAny (list), forms:create, forms:view (a form, its fields
// and steps), forms:update (changing a form, its fields and steps, and
// updating, bulk-editing or deleting submissions), forms:delete (a form),
// forms:viewSubmissions (reading and exporting submissions, downloading
// uploads) and forms:manageNotifications; "forms:*" covers them all, and a
// host may plug in its own Authorizer. {form} in a path is a form's slug or
// its numeric ID. Lists page with page and per_page (15 by default, at most
// 100). Writes apply only the keys a body carries, so PUT and PATCH both
// update in part.
//
// # Submissions
//
// POST /{form}/submit takes multipart/form-data (values by field name,
// "data[name]" too; one file per file field), url-encoded or JSON bodies. In
// order: a form that is missing or inactive is a 404; more than 5
// submissions a minute from one IP to one form is a 429 that says when to
// try again (a submission refused for a mistake is given back, up to
// mistakesPerSubmission for each allowed one, so a person's corrections
// are not counted; the limiter must be a groundwork.RateLimitRefunder, as both
// of the library's are); answers that fail
// their field's rules are a 422 keyed by field name; otherwise 201
// {success, message, submission_id, redirect_url}. Fields hidden by
// conditional logic are neither validated nor stored. A select, radio,
// checkbox group or multi-select answer must be one of the field's options.
//
// A filled honeypot ("website_url") or a missing or bad form-load token is
// spam: stored with is_spam, answered like any other, and never notified or
// passed to hooks. The token ([Service.FormToken]; the render definition's
// config.form_token and the page's hidden input, sent back as _form_token)
// names the form and when it was shown, signed with Options.FormTokenKey;
// it is good once, from the form's min_fill_seconds ([Form.MinFillSeconds],
// 2 unless set, 0 to 60) after it was issued until FormTokenMaxAge (a day)
// after. One missing, forged, for another form, too fresh, expired or used
// before makes the submission spam. A submission refused with a 422 leaves
// its token unused. A spam submission an admin marks as not spam (is_spam
// false, or the bulk mark_not_spam) is then treated as one just made: its
// notifications go out and the submission hooks run (marking it again
// while it is not spam does nothing more). The _form_loaded_at
// field, which a client may leave out or forge, counts only with
// Options.FormTokenOptional, for a submission without a token.
//
// Files go to a [BlobStore] ([DirBlobStore] keeps them in a directory)
// under names made from UUIDs, never from the client's file name. A field
// takes the extensions in its field_config.allowed_types (else
// AllowedExtensionsDefault) up to its field_config.max_size KB, and never
// more than 10 MiB a file or 25 MiB a request.
//
// # Notifications
//
// A notification is admin, autoresponder or custom. Its subject and message
// take the placeholders {{form_name}}, {{all_fields}} ("Label: value"
// lines), {{submission_number}} and {{<field name>}}; its recipients are
// addresses and {{field:<name>}} for an address the submitter gave. For each
// accepted submission one job per notification is queued in the
// submission's own transaction, and retried on failure.
//
// # Hooks
//
// [Service.OnSubmissionAcceptedTx] runs inside the transaction that stores a
// submission, for work that must commit with it (recording webhook
// deliveries, queueing an email-list subscription);
// [Service.OnSubmissionAccepted] runs after the commit; [Service.OnFormCreated],
// [Service.OnFormUpdated] and [Service.OnFormDeleted] follow a form's life.
//
// # Differences from the PHP package it ports
//
// The submission number is derived from the submission's ID
// ("FORM-2026-00042"), not from a per-form counter that every submission
// would have to lock. Spam is stored (flagged), not dropped. A field's name
// does not change when its label does. Answers of choice fields are checked
// against their options. The "html" layout type is shown as text.
//
// # Setting up the database
//
// Migrate the host's database with formssql.Migrations before use:
// store.Migrate(ctx, db, formssql.Migrations) applies them with the core
// tables (rate limits, idempotency keys) and River's, and is safe to run
// at every start and from several instances at once. One rate limiter may
// be shared by every handler of every domain (each names its own keys);
// store.NewSQLRateLimiter(db, nil) holds the limits across instances.
package forms
