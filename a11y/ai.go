package a11y

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Feature names an AI feature. Each has its own toggle and model.
type Feature string

// The AI features.
const (
	FeatureContentAnalysis     Feature = "a11y.content_analysis"
	FeatureAriaSuggestion      Feature = "a11y.aria_suggestion"
	FeatureContrastExplanation Feature = "a11y.contrast_explanation"
)

// Provider names an AI provider.
type Provider string

// Providers the AI features know default models for; a11y/a11yai talks
// to each through langchaingo.
const (
	ProviderAnthropic Provider = "anthropic"
	ProviderOpenAI    Provider = "openai"
	ProviderOllama    Provider = "ollama"
)

// AI defaults.
const (
	// AITimeoutDefault bounds one call to the provider.
	AITimeoutDefault = 30 * time.Second
	// aiTemperature is sent with every call: low, for consistent reviews.
	aiTemperature = 0.2
)

// defaultModels are each provider's models per feature, used when the
// options name none.
var defaultModels = map[Provider]map[Feature]string{
	ProviderAnthropic: {FeatureContentAnalysis: "claude-sonnet-4-6", FeatureAriaSuggestion: "claude-sonnet-4-6", FeatureContrastExplanation: "claude-haiku-4-5"},
	ProviderOpenAI:    {FeatureContentAnalysis: "gpt-4.1-mini", FeatureAriaSuggestion: "gpt-4.1-mini", FeatureContrastExplanation: "gpt-4.1-mini"},
	ProviderOllama:    {FeatureContentAnalysis: "llama3.2:3b", FeatureAriaSuggestion: "llama3.2:3b", FeatureContrastExplanation: "llama3.2:3b"},
}

// Completion is one request to a model.
type Completion struct {
	Feature Feature
	// Model names the provider's model.
	Model string
	// System holds the instructions; Prompt the user's message.
	System string
	Prompt string
	// MaxTokens caps the answer.
	MaxTokens   int
	Temperature float64
	// JSON asks for a JSON object where the provider can enforce it; the
	// instructions ask for one in any case.
	JSON bool
}

// Completer is the one thing the AI features need from a model: text for
// a prompt. Package a11y/a11yai makes one for Anthropic, OpenAI or Ollama
// (through langchaingo, which this package does not link); a host may
// write its own.
type Completer interface {
	Complete(ctx context.Context, c Completion) (string, error)
}

// AIOptions configures [NewAI].
type AIOptions struct {
	// Completer answers the prompts. Nil means no model is configured:
	// every feature answers ErrNoCredentials. a11yai.NewCompleter makes
	// one for a provider; a11yai.NewAI does both steps.
	Completer Completer
	// Provider is "anthropic", "openai" or "ollama": it picks the default
	// model of each feature (see DefaultModel). Empty means Anthropic's.
	Provider Provider
	// Model is the model of every feature that Models does not name; when
	// empty, each provider's defaults apply.
	Model string
	// Models names a model per feature.
	Models map[Feature]string
	// Disabled turns features off: they answer ErrFeatureDisabled.
	Disabled []Feature
	// Timeout bounds one call; AITimeoutDefault when zero.
	Timeout time.Duration
	// Logger receives provider failures, which never reach clients.
	Logger *slog.Logger
}

// AI runs the AI-assisted features: content analysis, ARIA suggestions
// and contrast explanations. Safe for concurrent use.
type AI struct {
	svc       *Service
	completer Completer // nil: no credentials
	provider  Provider
	model     string
	models    map[Feature]string
	disabled  map[Feature]bool
	timeout   time.Duration
	logger    *slog.Logger
}

// NewAI returns the AI features on svc's colour logic (nil for Default),
// answering through opts.Completer. An unknown provider or feature is an
// error; no Completer is not: the features answer ErrNoCredentials until
// one is configured.
func NewAI(svc *Service, opts *AIOptions) (*AI, error) {
	if svc == nil {
		svc = defaultService
	}
	var o AIOptions
	if opts != nil {
		o = *opts
	}
	a := &AI{svc: svc, provider: o.Provider, model: o.Model, models: map[Feature]string{}, disabled: map[Feature]bool{},
		timeout: o.Timeout, logger: o.Logger}
	if a.timeout == 0 {
		a.timeout = AITimeoutDefault
	}
	if a.timeout < 0 {
		return nil, errors.New("a11y: new ai: negative timeout")
	}
	if a.logger == nil {
		a.logger = slog.New(slog.DiscardHandler)
	}
	for f, m := range o.Models {
		if !knownFeature(f) {
			return nil, fmt.Errorf("a11y: new ai: unknown feature %q", f)
		}
		a.models[f] = m
	}
	for _, f := range o.Disabled {
		if !knownFeature(f) {
			return nil, fmt.Errorf("a11y: new ai: unknown feature %q", f)
		}
		a.disabled[f] = true
	}
	if o.Provider != "" {
		if _, ok := defaultModels[o.Provider]; !ok {
			return nil, fmt.Errorf("a11y: new ai: unknown provider %q (anthropic, openai or ollama)", o.Provider)
		}
	}
	a.completer = o.Completer
	return a, nil
}

// DefaultModel is the model feature uses on provider when the options
// name none; "" for an unknown provider or feature.
func DefaultModel(provider Provider, f Feature) string { return defaultModels[provider][f] }

func knownFeature(f Feature) bool {
	return f == FeatureContentAnalysis || f == FeatureAriaSuggestion || f == FeatureContrastExplanation
}

// Errors of the AI features. The handler answers 403, 503, 502 and 422.
var (
	ErrFeatureDisabled     = errors.New("a11y: ai feature disabled")
	ErrNoCredentials       = errors.New("a11y: no ai credentials")
	ErrProviderUnavailable = errors.New("a11y: ai provider unavailable")
)

// InputError is input a feature cannot work with, found after the
// request's own validation (an unresolvable colour, say).
type InputError struct {
	Feature Feature
	Reason  string
}

// Error implements error.
func (e *InputError) Error() string {
	return fmt.Sprintf("AI feature %q could not run: %s", e.Feature, e.Reason)
}

// Enabled reports whether feature is on.
func (a *AI) Enabled(f Feature) bool { return !a.disabled[f] }

// modelFor resolves a feature's model: per feature, then the common
// model, then the provider's default.
func (a *AI) modelFor(f Feature) string {
	if m := a.models[f]; m != "" {
		return m
	}
	if a.model != "" {
		return a.model
	}
	if d, ok := defaultModels[a.provider]; ok {
		return d[f]
	}
	return defaultModels[ProviderAnthropic][f]
}

// ready checks the toggle and the credentials, in that order.
func (a *AI) ready(f Feature) error {
	if a.disabled[f] {
		return ErrFeatureDisabled
	}
	if a.completer == nil {
		return ErrNoCredentials
	}
	return nil
}

// run sends a prompt and returns the model's top-level JSON object, or nil
// for a top-level array (which the features read as "nothing found").
func (a *AI) run(ctx context.Context, f Feature, prompt string, maxTokens int) (map[string]json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	text, err := a.completer.Complete(ctx, Completion{Feature: f, Model: a.modelFor(f), System: instructions[f], Prompt: prompt,
		MaxTokens: maxTokens, Temperature: aiTemperature, JSON: true})
	if err != nil {
		a.logger.ErrorContext(ctx, "a11y: ai provider failed", "feature", f, "error", err)
		return nil, fmt.Errorf("%w: %w", ErrProviderUnavailable, err)
	}
	out, err := decodeModelJSON(text)
	if err != nil {
		a.logger.ErrorContext(ctx, "a11y: ai answer is not a JSON object", "feature", f, "error", err)
		return nil, fmt.Errorf("%w: %w", ErrProviderUnavailable, err)
	}
	return out, nil
}

// decodeModelJSON strips a ``` fence (and its language tag) around the
// answer, then decodes it strictly. A JSON array decodes as nil; a scalar
// or anything not JSON is an error.
func decodeModelJSON(text string) (map[string]json.RawMessage, error) {
	text = strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(text, "```"); ok {
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[i+1:]
		} else {
			rest = ""
		}
		text = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
	}
	var v json.RawMessage
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("model output is not JSON: %w", err)
	}
	switch {
	case len(v) > 0 && v[0] == '[':
		return nil, nil
	case len(v) == 0 || v[0] != '{':
		return nil, errors.New("model output is not a JSON object")
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(v, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// phpString casts a decoded JSON value to a string as PHP's (string) does:
// numbers in their shortest form, true "1", false and null "". Arrays and
// objects, which PHP would not cast cleanly, give ok false.
func phpString(raw json.RawMessage) (string, bool) {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch t := v.(type) {
	case string:
		return t, true
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1e15 {
			return fmt.Sprintf("%d", int64(t)), true
		}
		return fmt.Sprint(t), true
	case bool:
		if t {
			return "1", true
		}
		return "", true
	case nil:
		return "", true
	}
	return "", false
}

// objects decodes raw as a list and keeps the items that are objects.
// Anything but a list gives none.
func objects(raw json.RawMessage) []map[string]json.RawMessage {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []map[string]json.RawMessage
	for _, it := range items {
		var m map[string]json.RawMessage
		if len(it) > 0 && it[0] == '{' && json.Unmarshal(it, &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// stringList returns the non-blank strings of a list, trimmed.
func stringList(raw json.RawMessage) []string {
	var items []any
	out := []string{}
	if json.Unmarshal(raw, &items) != nil {
		return out
	}
	for _, it := range items {
		if s, ok := it.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

// ContentIssue is a problem found in content.
type ContentIssue struct {
	// Location points at the spot, e.g. "link[2]", "heading[1]", "content".
	Location string `json:"location"`
	// IssueType is a short kebab-case label, e.g. "ambiguous-link-text".
	IssueType string `json:"issue_type"`
	// Severity is "info", "warning" or "error".
	Severity     string `json:"severity"`
	SuggestedFix string `json:"suggested_fix"`
}

// ContentAnalysis is the answer of [AI.AnalyzeContent].
type ContentAnalysis struct {
	Issues []ContentIssue `json:"issues"`
}

// ContentAnalysisRequest is the input of [AI.AnalyzeContent].
type ContentAnalysisRequest struct {
	// Content is plain text, Markdown or HTML; required.
	Content string `json:"content"`
	// Structure optionally summarises it: a JSON object whose "headings",
	// "links" and "images" lists are passed on (others are dropped).
	Structure json.RawMessage `json:"structure,omitempty"`
}

// AnalyzeContent asks the model for content-level accessibility problems
// that static rules miss.
func (a *AI) AnalyzeContent(ctx context.Context, req ContentAnalysisRequest) (*ContentAnalysis, error) {
	f := FeatureContentAnalysis
	if err := a.ready(f); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Content) == "" {
		return nil, &InputError{f, "`content` must be a non-empty string."}
	}
	var parts []string
	if summary := structureSummary(req.Structure); summary != "" {
		parts = append(parts, "Structural summary (JSON):\n"+summary)
	}
	parts = append(parts, "Content:\n"+req.Content)
	out, err := a.run(ctx, f, strings.Join(parts, "\n\n"), 4096)
	if err != nil {
		return nil, err
	}
	res := &ContentAnalysis{Issues: []ContentIssue{}}
	for _, it := range objects(out["issues"]) {
		loc, _ := phpString(it["location"])
		typ, _ := phpString(it["issue_type"])
		if loc == "" || typ == "" {
			continue
		}
		sev, _ := phpString(it["severity"])
		if sev != "info" && sev != "warning" && sev != "error" {
			sev = "warning"
		}
		fix, _ := phpString(it["suggested_fix"])
		res.Issues = append(res.Issues, ContentIssue{Location: loc, IssueType: typ, Severity: sev, SuggestedFix: fix})
	}
	return res, nil
}

// structureSummary keeps the headings, links and images of a structure
// object, in the order given, each as a list (an object's values, in
// order), pretty-printed with four spaces.
func structureSummary(raw json.RawMessage) string {
	keys, values := orderedObject(raw)
	var b strings.Builder
	n := 0
	for i, k := range keys {
		if k != "headings" && k != "links" && k != "images" {
			continue
		}
		list, ok := asList(values[i])
		if !ok {
			continue
		}
		if n == 0 {
			b.WriteString("{\n")
		} else {
			b.WriteString(",\n")
		}
		key, _ := json.Marshal(k)
		b.WriteString("    ")
		b.Write(key)
		b.WriteString(": ")
		b.WriteString(indentJSON(list, "    "))
		n++
	}
	if n == 0 {
		return ""
	}
	b.WriteString("\n}")
	return b.String()
}

// orderedObject splits a JSON object into its keys and raw values, in
// document order. Anything else gives nothing.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil
	}
	var keys []string
	var values []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil
		}
		keys, values = append(keys, t.(string)), append(values, v)
	}
	return keys, values
}

// asList returns a JSON list as is, and an object's values as a list in
// document order.
func asList(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) > 0 && raw[0] == '[' {
		return raw, true
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	_, values := orderedObject(raw)
	if values == nil {
		values = []json.RawMessage{}
	}
	b, err := json.Marshal(values)
	return b, err == nil
}

// indentJSON pretty-prints raw with four spaces, nested under prefix,
// without escaping HTML characters.
func indentJSON(raw json.RawMessage, prefix string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, prefix, "    "); err != nil {
		return string(raw)
	}
	return b.String()
}

// AriaAttribute is one attribute an ARIA suggestion recommends.
type AriaAttribute struct {
	Name      string `json:"name"`
	Value     string `json:"value"`
	Rationale string `json:"rationale"`
}

// AriaSuggestion is the answer of [AI.SuggestAria]. Role is nil when the
// native element's semantics already fit.
type AriaSuggestion struct {
	Role       *string         `json:"role"`
	Attributes []AriaAttribute `json:"attributes"`
	Keyboard   []string        `json:"keyboard"`
	Notes      []string        `json:"notes"`
}

// AriaRequest is the input of [AI.SuggestAria].
type AriaRequest struct {
	// Markup is the component's HTML; required.
	Markup string `json:"markup"`
	// Behavior describes what it does, in plain words; required.
	Behavior string `json:"behavior"`
	// Framework optionally names the UI framework.
	Framework string `json:"framework,omitempty"`
	// ExistingAria lists attributes already present; only scalar values
	// are passed on.
	ExistingAria map[string]any `json:"existing_aria,omitempty"`
}

// SuggestAria asks the model for the role, attributes and keyboard
// interactions a custom component needs.
func (a *AI) SuggestAria(ctx context.Context, req AriaRequest) (*AriaSuggestion, error) {
	f := FeatureAriaSuggestion
	if err := a.ready(f); err != nil {
		return nil, err
	}
	markup, behavior := strings.TrimSpace(req.Markup), strings.TrimSpace(req.Behavior)
	if markup == "" {
		return nil, &InputError{f, "`markup` must be a non-empty string."}
	}
	if behavior == "" {
		return nil, &InputError{f, "`behavior` must be a non-empty string."}
	}
	parts := []string{"Behavior:\n" + behavior, "Markup:\n" + markup}
	if fw := strings.TrimSpace(req.Framework); fw != "" {
		parts = append(parts, "Framework: "+fw)
	}
	if existing := scalarAttributes(req.ExistingAria); len(existing) > 0 {
		b, _ := json.Marshal(existing) // sorted keys
		parts = append(parts, "Existing ARIA attributes:\n"+string(b))
	}
	out, err := a.run(ctx, f, strings.Join(parts, "\n\n"), 2048)
	if err != nil {
		return nil, err
	}
	res := &AriaSuggestion{Attributes: []AriaAttribute{}, Keyboard: stringList(out["keyboard"]), Notes: stringList(out["notes"])}
	var role any
	if json.Unmarshal(out["role"], &role) == nil {
		if s, ok := role.(string); ok && strings.TrimSpace(s) != "" {
			s = strings.TrimSpace(s)
			res.Role = &s
		}
	}
	for _, it := range objects(out["attributes"]) {
		name, _ := phpString(it["name"])
		if name == "" {
			continue
		}
		value, _ := phpString(it["value"])
		why, _ := phpString(it["rationale"])
		res.Attributes = append(res.Attributes, AriaAttribute{Name: name, Value: value, Rationale: why})
	}
	return res, nil
}

// scalarAttributes keeps the scalar values under string keys, cast to
// strings as PHP does. Keys that PHP would read as integers ("5") are
// dropped: only string keys are kept.
func scalarAttributes(m map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if integerKey.MatchString(k) {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			continue
		}
		switch v.(type) {
		case string, float64, bool:
			s, _ := phpString(raw)
			out[k] = s
		}
	}
	return out
}

var integerKey = regexp.MustCompile(`^(0|-?[1-9][0-9]*)$`)

// ContrastContext is what a colour pair is used for.
type ContrastContext string

// The contexts and their required ratios (WCAG 2.1 AA).
const (
	ContextBodyText  ContrastContext = "body_text"  // 4.5:1, the default
	ContextLargeText ContrastContext = "large_text" // 3:1
	ContextUI        ContrastContext = "ui"         // 3:1
)

// RequiredRatio is the context's minimum ratio; ok is false for an unknown
// context.
func (c ContrastContext) RequiredRatio() (float64, bool) {
	switch c {
	case ContextBodyText, "":
		return 4.5, true
	case ContextLargeText, ContextUI:
		return 3, true
	}
	return 0, false
}

// ContrastAlternative is a pair that passes where the original failed.
type ContrastAlternative struct {
	Fg string `json:"fg"`
	Bg string `json:"bg"`
	// Ratio is the pair's contrast, rounded to 2 decimals.
	Ratio float64 `json:"ratio"`
	// DeltaFromOriginal is how far the pair moved: the mean CIEDE2000
	// distance of fg and bg from the originals, over 100, clamped to
	// [0, 1], to 3 decimals. Computed here, never taken from the model.
	DeltaFromOriginal float64 `json:"delta_from_original"`
}

// ContrastExplanation is the answer of [AI.ExplainContrast].
type ContrastExplanation struct {
	Explanation string `json:"explanation"`
	// CurrentRatio is the pair's contrast, rounded to 2 decimals.
	CurrentRatio float64 `json:"current_ratio"`
	// RequiredRatio is the context's WCAG 2.1 AA minimum.
	RequiredRatio         float64               `json:"required_ratio"`
	SuggestedAlternatives []ContrastAlternative `json:"suggested_alternatives"`
}

// ContrastRequest is the input of [AI.ExplainContrast].
type ContrastRequest struct {
	// Foreground and Background: hex, rgb(), hsl() or palette names.
	Foreground string `json:"foreground"`
	Background string `json:"background"`
	// Context: body_text when empty.
	Context ContrastContext `json:"context,omitempty"`
	// BrandPalette lists colours the alternatives should prefer.
	BrandPalette []string `json:"brand_palette,omitempty"`
}

// MinAlternatives is how many alternatives ExplainContrast aims to
// return: when fewer of the model's survive the re-check, local ones that
// keep the hue make up the difference.
const MinAlternatives = 2

// ExplainContrast asks the model to explain, in plain words, why a pair
// fails and to propose passing alternatives. The ratios are computed
// here; every alternative is re-resolved and re-checked, and those that
// still fail are dropped.
func (a *AI) ExplainContrast(ctx context.Context, req ContrastRequest) (*ContrastExplanation, error) {
	f := FeatureContrastExplanation
	if err := a.ready(f); err != nil {
		return nil, err
	}
	fgIn, bgIn := strings.TrimSpace(req.Foreground), strings.TrimSpace(req.Background)
	if fgIn == "" || bgIn == "" {
		return nil, &InputError{f, "`foreground` and `background` must be non-empty color values."}
	}
	fg, ok1 := a.svc.resolve(fgIn)
	bg, ok2 := a.svc.resolve(bgIn)
	if !ok1 || !ok2 {
		return nil, &InputError{f, fmt.Sprintf("`foreground` (%s) and `background` (%s) must be hex codes or recognised Tailwind color names.", fgIn, bgIn)}
	}
	context := req.Context
	if context == "" {
		context = ContextBodyText
	}
	required, ok := context.RequiredRatio()
	if !ok {
		return nil, &InputError{f, fmt.Sprintf("unsupported context %q; expected one of body_text, large_text, ui.", context)}
	}
	current := ratio(fg.rgb, bg.rgb)
	parts := []string{fmt.Sprintf("Foreground: %s\nBackground: %s\nContext: %s\nMeasured contrast ratio: %.2f\nRequired ratio: %.2f",
		fg.rgb.hex(), bg.rgb.hex(), context, current, required)}
	var brand []string
	for _, c := range req.BrandPalette {
		if c = strings.TrimSpace(c); c != "" {
			brand = append(brand, c)
		}
	}
	if len(brand) > 0 {
		parts = append(parts, "Brand palette (preferred sources for suggestions): "+strings.Join(brand, ", "))
	}
	out, err := a.run(ctx, f, strings.Join(parts, "\n\n"), 1024)
	if err != nil {
		return nil, err
	}
	res := &ContrastExplanation{CurrentRatio: round(current, 2), RequiredRatio: required, SuggestedAlternatives: []ContrastAlternative{}}
	res.Explanation, _ = phpString(out["explanation"])
	for _, it := range objects(out["suggested_alternatives"]) {
		fgs, _ := phpString(it["fg"])
		bgs, _ := phpString(it["bg"])
		afg, ok1 := a.svc.resolve(fgs)
		abg, ok2 := a.svc.resolve(bgs)
		if !ok1 || !ok2 {
			continue
		}
		if r := ratio(afg.rgb, abg.rgb); r >= required {
			res.SuggestedAlternatives = append(res.SuggestedAlternatives, newAlternative(afg.rgb, abg.rgb, fg.rgb, bg.rgb))
		}
	}
	if len(res.SuggestedAlternatives) < MinAlternatives {
		res.SuggestedAlternatives = appendLocalAlternatives(res.SuggestedAlternatives, fg.rgb, bg.rgb, required)
	}
	return res, nil
}

func newAlternative(fg, bg, origFg, origBg rgb) ContrastAlternative {
	return ContrastAlternative{Fg: fg.hex(), Bg: bg.hex(), Ratio: round(ratio(fg, bg), 2), DeltaFromOriginal: delta(fg, bg, origFg, origBg)}
}

// round rounds half away from zero to n decimals.
func round(x float64, n int) float64 {
	p := math.Pow10(n)
	return math.Round(x*p) / p
}

// appendLocalAlternatives adds hue-keeping alternatives until there are
// MinAlternatives, nearest first, skipping pairs already listed.
func appendLocalAlternatives(have []ContrastAlternative, fg, bg rgb, required float64) []ContrastAlternative {
	cands := localAlternatives(fg, bg, required)
	slices.SortStableFunc(cands, func(x, y ContrastAlternative) int {
		switch {
		case x.DeltaFromOriginal < y.DeltaFromOriginal:
			return -1
		case x.DeltaFromOriginal > y.DeltaFromOriginal:
			return 1
		}
		return 0
	})
	for _, c := range cands {
		if len(have) >= MinAlternatives {
			break
		}
		if !slices.ContainsFunc(have, func(h ContrastAlternative) bool { return h.Fg == c.Fg && h.Bg == c.Bg }) {
			have = append(have, c)
		}
	}
	return have
}
