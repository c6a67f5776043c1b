package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/groundwork-go/groundwork/store"
)

// mailKinds are the jobs that send mail, and what each sends.
var mailKinds = map[string]string{
	"auth_mail":              "account mail (reset, confirmation, notices)",
	"forms_notification":     "form notification",
	"forms_link_mail":        "form link (access or saved answers)",
	"bookings_mail":          "booking mail (confirmation, reminder, change)",
	"reporting_email_report": "analytics email report",
}

// outboxLimit is the most mails "mail outbox" lists.
const outboxLimit = 500

// runMail is "reference mail outbox [--json]": the mails queued and still
// unsent (waiting for their first try, or for the next after a failure),
// oldest first, with how often each was tried, when it is tried next and
// why the last try failed.
func runMail(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "outbox" {
		return usageError{"mail needs a sub-command: outbox"}
	}
	flags := newFlagSet("reference mail outbox")
	asJSON := flags.Bool("json", false, "print JSON")
	db, _, _, err := dbCommand(ctx, flags, args[1:], getenv, stderr, noArguments)
	if err != nil {
		return err
	}
	defer db.Close()
	q, err := store.NewQueue(db, nil)
	if err != nil {
		return err
	}
	kinds := make([]string, 0, len(mailKinds))
	for k := range mailKinds {
		kinds = append(kinds, k)
	}
	jobs, err := q.Backlog(ctx, outboxLimit, kinds...)
	if err != nil {
		return err
	}
	if *asJSON {
		if jobs == nil {
			jobs = []store.WaitingJob{}
		}
		return json.NewEncoder(stdout).Encode(jobs)
	}
	if len(jobs) == 0 {
		fmt.Fprintln(stdout, "No mail waiting.")
		return nil
	}
	now := time.Now()
	fmt.Fprintf(stdout, "%d mails waiting (the oldest queued %s ago)%s.\n", len(jobs), now.Sub(jobs[0].Queued).Round(time.Second),
		map[bool]string{true: fmt.Sprintf(", the first %d listed", outboxLimit)}[len(jobs) == outboxLimit])
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tMAIL\tTRIES\tQUEUED\tNEXT TRY\tLAST ERROR")
	for _, j := range jobs {
		next := "now"
		if d := j.Next.Sub(now); d > 0 && j.State != "running" {
			next = "in " + d.Round(time.Second).String()
		}
		if j.State == "running" {
			next = "sending"
		}
		// The cause is at the end of a wrapped error.
		lastError := strings.ReplaceAll(j.LastError, "\n", " ")
		if r := []rune(lastError); len(r) > 80 {
			lastError = "…" + string(r[len(r)-80:])
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\n", j.ID, mailKinds[j.Kind], j.Attempt, j.Queued.Local().Format(time.DateTime), next, lastError)
	}
	return tw.Flush()
}
