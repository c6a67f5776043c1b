package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/groundwork-go/groundwork/a11y"
)

// errFailed is the exit status 1 of "a11y audit --fail" when a pair fails;
// its report is already printed.
var errFailed = errors.New("a pair fails AA")

var cliLevels = []struct {
	name  string
	level a11y.Level
}{{"AA", a11y.AA}, {"AA large", a11y.AALarge}, {"AAA", a11y.AAA}, {"AAA large", a11y.AAALarge}, {"non-text", a11y.NonText}}

func runA11y(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError{"a11y needs a sub-command: check, text-color or audit"}
	}
	sub, args := args[0], args[1:]
	fs := newFlagSet("reference a11y " + sub)
	tint := fs.Bool("tint", false, "a shade of the background instead of black or white")
	fail := fs.Bool("fail", false, "exit 1 when a pair fails AA")
	colors, err := parseInterspersed(fs, args)
	if err != nil {
		return usageError{err.Error()}
	}
	hexes := make([]string, len(colors))
	for i, c := range colors {
		hex, ok := a11y.ResolveColor(c)
		if !ok {
			return usageError{fmt.Sprintf("%q is not a colour: use #rgb, #rrggbb, rgb(), hsl() or a Tailwind name", c)}
		}
		hexes[i] = hex
	}
	switch sub {
	case "check":
		if len(colors) != 2 {
			return usageError{"a11y check takes a foreground and a background"}
		}
		ratio, err := a11y.ContrastRatio(hexes[0], hexes[1])
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s on %s: %.2f:1 (%s)\n", hexes[0], hexes[1], ratio, strconv.FormatFloat(ratio, 'f', -1, 64))
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		for _, l := range cliLevels {
			verdict := "fail"
			if a11y.CheckContrast(hexes[0], hexes[1], l.level) {
				verdict = "pass"
			}
			fmt.Fprintf(tw, "  %s\t%s\t(%s:1)\n", l.name, verdict, strconv.FormatFloat(l.level.Threshold(), 'f', -1, 64))
		}
		return tw.Flush()
	case "text-color":
		if len(colors) != 1 {
			return usageError{"a11y text-color takes one background"}
		}
		fmt.Fprintln(stdout, a11y.GenerateAccessibleTextColor(hexes[0], *tint))
		return nil
	case "audit":
		if len(colors) < 2 {
			return usageError{"a11y audit takes two colours or more"}
		}
		rows := a11y.AuditPalette(hexes)
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "FOREGROUND\tBACKGROUND\tRATIO\tAA")
		failed := 0
		for _, r := range rows {
			verdict := "pass"
			if !r.IsAccessible {
				verdict = "fail"
				failed++
			}
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\n", r.Foreground, r.Background, r.Ratio, verdict)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d of %d pairs pass AA.\n", len(rows)-failed, len(rows))
		if *fail && failed > 0 {
			return errFailed
		}
		return nil
	}
	return usageError{fmt.Sprintf("unknown a11y sub-command %q: check, text-color or audit", sub)}
}
