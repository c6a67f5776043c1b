package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/groundwork-go/groundwork/auth"
	"github.com/groundwork-go/groundwork/emaillist"
	"github.com/groundwork-go/groundwork/emaillist/emaillistsql"
	"github.com/groundwork-go/groundwork/forms"
	"github.com/groundwork-go/groundwork/link"
	"github.com/groundwork-go/groundwork/store"
)

// emaillistConfig is the email-list provider the server subscribes
// through, from the environment.
type emaillistConfig struct {
	provider, apiKey, baseURL, listID string
	allowInsecure                     bool
	subscribeLimit                    int
	// tagNames name Mailchimp's tags by the IDs feeds and requests give.
	tagNames map[int64]string
}

// emaillistAbility is what a bearer token needs for the feed
// administration ("emailmarketing:*" grants it).
const emaillistAbility = "emailmarketing:feeds"

func readEmaillistConfig(getenv func(string) string) (emaillistConfig, error) {
	c := emaillistConfig{provider: strings.ToLower(getenv("GROUNDWORK_EMAILLIST_PROVIDER")), apiKey: getenv("GROUNDWORK_EMAILLIST_API_KEY"),
		baseURL: getenv("GROUNDWORK_EMAILLIST_BASE_URL"), listID: getenv("GROUNDWORK_EMAILLIST_LIST_ID")}
	switch c.provider {
	case "", "kit", "mailchimp":
	default:
		return c, fmt.Errorf("GROUNDWORK_EMAILLIST_PROVIDER must be kit or mailchimp, not %q", c.provider)
	}
	if s := getenv("GROUNDWORK_EMAILLIST_ALLOW_INSECURE_URLS"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return c, fmt.Errorf("GROUNDWORK_EMAILLIST_ALLOW_INSECURE_URLS must be true or false, not %q", s)
		}
		c.allowInsecure = b
	}
	if s := getenv("GROUNDWORK_EMAILLIST_TAG_NAMES"); s != "" {
		c.tagNames = map[int64]string{}
		for pair := range strings.SplitSeq(s, ",") {
			id, name, ok := strings.Cut(strings.TrimSpace(pair), "=")
			n, err := strconv.ParseInt(strings.TrimSpace(id), 10, 64)
			if !ok || err != nil || n < 1 || strings.TrimSpace(name) == "" {
				return c, fmt.Errorf("GROUNDWORK_EMAILLIST_TAG_NAMES takes ID=name pairs (3=VIP,7=Newsletter), not %q", pair)
			}
			c.tagNames[n] = strings.TrimSpace(name)
		}
	}
	if s := getenv("GROUNDWORK_EMAILLIST_SUBSCRIBE_LIMIT"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return c, fmt.Errorf("GROUNDWORK_EMAILLIST_SUBSCRIBE_LIMIT must be a positive number (the throttle cannot be turned off), not %q", s)
		}
		c.subscribeLimit = n
	}
	return c, nil
}

// pinger is a provider that can check its key.
type pinger interface {
	emaillist.Provider
	Ping(ctx context.Context) error
}

// newListProvider is the configured provider, or without one a provider
// that logs each subscribe it is given instead of sending it.
func newListProvider(c emaillistConfig, logger *slog.Logger) (pinger, error) {
	switch c.provider {
	case "kit":
		return emaillist.NewKit(c.apiKey, &emaillist.KitOptions{BaseURL: c.baseURL, AllowInsecure: c.allowInsecure})
	case "mailchimp":
		return emaillist.NewMailchimp(c.apiKey, c.listID, &emaillist.MailchimpOptions{BaseURL: c.baseURL,
			AllowInsecure: c.allowInsecure, TagNames: c.tagNames})
	}
	return loggedProvider{logger}, nil
}

// loggedProvider logs the subscribes it is given: the server without a
// provider configured.
type loggedProvider struct{ logger *slog.Logger }

func (p loggedProvider) Subscribe(ctx context.Context, sub emaillist.Subscription) (emaillist.Subscriber, error) {
	var firstName string
	var listForm int64
	if sub.FirstName != nil {
		firstName = *sub.FirstName
	}
	if sub.ListFormID != nil {
		listForm = *sub.ListFormID
	}
	p.logger.InfoContext(ctx, "emaillist: no provider configured; this subscribe was not sent", "email", sub.Email,
		"first_name", firstName, "fields", sub.Fields, "tags", sub.TagIDs, "list_form_id", listForm)
	return emaillist.Subscriber{ID: "logged", Email: sub.Email}, nil
}

func (loggedProvider) Ping(context.Context) error {
	return errors.New("no provider is configured (GROUNDWORK_EMAILLIST_PROVIDER)")
}

// newEmaillist joins the email list to env: feeds of the server's forms,
// their administration (a token with emailmarketing:* or a user with the
// capability, behind the sign-in pages' checks), the public subscribe;
// link.Join feeds it the accepted submissions.
func newEmaillist(c emaillistConfig, env *store.Env, f *forms.Service, tokens *auth.Service, signIn *auth.Web) (*emaillist.Module, error) {
	provider, err := newListProvider(c, env.Logger)
	if err != nil {
		return nil, err
	}
	m, err := emaillistsql.Join(env, &emaillist.ModuleOptions{
		Service:    emaillist.Options{Provider: provider, FormExists: link.FormExists(f)},
		Authorizer: requestAuthorizer(tokens), AdminGuard: func(h http.Handler) http.Handler { return signIn.Protect(signIn.LoadUser(h)) },
		Subscribe: emaillist.SubscribeHandlerOptions{Limit: c.subscribeLimit}})
	if err != nil {
		return nil, err
	}
	logger := env.Logger
	m.Service.OnEvent(func(ctx context.Context, e emaillist.Event) {
		switch e.Type {
		case emaillist.EventSubscribed:
			logger.InfoContext(ctx, "emaillist: subscribed", "feed", e.FeedID, "submission", e.SubmissionID, "subscriber", e.Subscriber.ID)
		case emaillist.EventSubscriptionFailed:
			logger.WarnContext(ctx, "emaillist: subscription failed", "feed", e.FeedID, "submission", e.SubmissionID, "error", e.Err)
		}
	})
	return m, nil
}

// runEmaillist is "reference emaillist ping | feeds list".
func runEmaillist(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	switch {
	case len(args) > 0 && args[0] == "ping":
		c, err := readEmaillistConfig(getenv)
		if err != nil {
			return usageError{err.Error()}
		}
		if c.provider == "" {
			return usageError{"emaillist ping needs a provider: set GROUNDWORK_EMAILLIST_PROVIDER (kit or mailchimp) and GROUNDWORK_EMAILLIST_API_KEY"}
		}
		p, err := newListProvider(c, slog.New(slog.DiscardHandler))
		if err != nil {
			return err
		}
		if err := p.Ping(ctx); err != nil {
			return fmt.Errorf("%s: %w", c.provider, err)
		}
		fmt.Fprintf(stdout, "%s accepts the key.\n", c.provider)
		return nil
	case len(args) > 1 && args[0] == "feeds" && args[1] == "list":
		fs := newFlagSet("reference emaillist feeds list")
		formID := fs.Int64("form", 0, "only the feeds of this form")
		st, _, _, err := dbCommand(ctx, fs, args[2:], getenv, stderr, noArguments)
		if err != nil {
			return err
		}
		defer st.Close()
		list, err := emaillistsql.New(st).ListFeeds(ctx, emaillist.FeedQuery{FormID: *formID})
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(stdout, "No feeds.")
		}
		for _, f := range list {
			state := "active"
			if !f.IsActive {
				state = "inactive"
			}
			list := "-"
			if f.ListFormID != nil {
				list = strconv.FormatInt(*f.ListFormID, 10)
			}
			fmt.Fprintf(stdout, "%d\tform %d\t%s\tlist form %s\ttags %v\t%s\n", f.ID, f.FormID, f.Name, list, f.ListTagIDs, state)
		}
		return nil
	}
	return usageError{"emaillist needs a sub-command: ping or feeds list"}
}
