// Package emaillist links the forms of an application to an email-list
// provider: feeds, their conditions and field maps, a dry-run, a public
// subscribe endpoint, and the queued job that calls the provider.
//
// # Feeds
//
// A [Feed] names a form of the application (FormID), a form and tags at
// the provider (ListFormID, ListTagIDs), a FieldMap from the provider's
// destinations to the form's field slugs (email_address required;
// first_name; any other key becomes a custom field) and optional
// [ConditionalLogic]. [Service.CreateFeed] and [Service.UpdateFeed]
// check every rule at write time ([ValidateFeed]): an unknown operator or
// match value, or a name the form's other feed has, is a 422, never a
// database error. Feeds live in a [Store]: emaillistsql on SQLite or
// Postgres.
//
// # Conditions
//
// [ConditionalLogic.Matches] evaluates all or any of ten operators
// (equals, not_equals, contains, not_contains, is_empty, is_not_empty,
// starts_with, ends_with, greater_than, less_than) on normalised
// values: null is "", booleans "1" and "0", arrays JSON;
// contains looks into arrays and an empty needle never matches; is_empty
// holds for blank text and empty arrays, not for 0 or false; the
// comparisons are numeric, and false for anything not a number. It never
// panics (fuzzed). [MapFields] builds the provider [Payload].
//
// # HTTP
//
// [NewAdminHandler] serves /admin/emailmarketing/feeds: list (?form_id),
// create, show, update (PUT and PATCH merge), delete, and POST
// feeds/{id}/test, a dry-run answering {would_send, reason, payload}.
// Every request asks the host's groundwork.RequestAuthorizer for the ability
// manage-emailmarketing-feeds (with the feed, nil for list and create); a
// refusal is 403 without a body. [NewSubscribeHandler] serves POST
// /emailmarketing/subscribers: exactly one of feed_id and list_form_id,
// an unknown or inactive feed the same 422 as any other mistake, and 202
// {"message": "Subscribe queued."} once the job is in the queue. Its
// per-IP throttle (10 a minute) can be tuned or replaced by the host's,
// never removed.
//
// # The job and the providers
//
// The subscribe runs as a River job ([SubscribeArgs], [RegisterWorkers])
// through a [Provider]: [NewKit] (Kit API v4: create or update the
// subscriber with first name and fields, add it to the form, then one
// call per tag, at most 50) or [NewMailchimp] (Marketing API v3: an
// idempotent member upsert, tags through the member tags endpoint). 429s,
// 5xx and lost connections are retried, honouring Retry-After, else after
// an exponential backoff with jitter; anything else fails the job at
// once. Outcomes are events ([Service.OnEvent]): list.subscribed,
// list.subscription_failed (once per job) and list.feed_skipped; hooks run
// before and after each call ([Service.OnSubscribing],
// [Service.OnSubscribed]).
//
// # Form submissions
//
// [Service.QueueSubmission] is what a host calls from forms' accepted
// submission hook (inside the submission's transaction): each active
// feed of the form is evaluated and mapped, and its job queued in that
// transaction; a feed that does not send is reported with its reason and
// never stops the others. Spam never reaches it.
//
// # Setting up the database
//
// Migrate the host's database with emaillistsql.Migrations before use:
// store.Migrate(ctx, db, emaillistsql.Migrations) applies them with the core
// tables (rate limits, idempotency keys) and River's, and is safe to run
// at every start and from several instances at once. One rate limiter may
// be shared by every handler of every domain (each names its own keys);
// store.NewSQLRateLimiter(db, nil) holds the limits across instances.
package emaillist
