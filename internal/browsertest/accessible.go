package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Accessible returns the role and accessible name the browser computes
// for the first element matching sel: what a screen reader announces.
func Accessible(ctx context.Context, sel string) (role, name string, err error) {
	// The element by a script's reference, not the DOM domain's node ids:
	// asking for the document anew would reset the ids chromedp tracks.
	q, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: fmt.Sprintf("document.querySelector(%q)", sel)})
	if err != nil {
		return "", "", err
	}
	if q.Result == nil || q.Result.ObjectID == "" {
		return "", "", fmt.Errorf("no element matches %s", sel)
	}
	alone := false
	tree, err := chromedp.Call(ctx, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{ObjectID: q.Result.ObjectID, FetchRelatives: &alone})
	if err != nil {
		return "", "", err
	}
	if len(tree.Nodes) == 0 {
		return "", "", fmt.Errorf("%s is not in the accessibility tree", sel)
	}
	n := tree.Nodes[0]
	str := func(v *accessibility.Value) string {
		var s string
		if v != nil {
			_ = json.Unmarshal(v.Value, &s)
		}
		return s
	}
	return str(n.Role), str(n.Name), nil
}

// Announced fails t unless the element matching sel has this role and
// accessible name.
func Announced(t testing.TB, ctx context.Context, sel, role, name string) {
	t.Helper()
	gotRole, gotName, err := Accessible(ctx, sel)
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	if gotRole != role || gotName != name {
		t.Fatalf("browsertest: %s is announced as %s %q, want %s %q", sel, gotRole, gotName, role, name)
	}
}
