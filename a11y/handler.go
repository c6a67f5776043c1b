package a11y

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/groundwork-go/groundwork"
	"github.com/groundwork-go/groundwork/internal/api"
	"github.com/groundwork-go/groundwork/internal/openapi"
	"github.com/groundwork-go/groundwork/internal/reply"
	"github.com/groundwork-go/groundwork/internal/throttle"
)

// Handler defaults and limits.
const (
	// PrefixDefault is where the colour endpoints live: /api/a11y.
	PrefixDefault = "/api/a11y"
	// AIAbilityDefault is the ability the AI endpoints require.
	AIAbilityDefault = "a11y:ai"
	// MaxPaletteColors caps audit-palette's colors.
	MaxPaletteColors = 256
	// Caps of the AI inputs, in characters or items.
	MaxContentLength  = 200_000
	MaxMarkupLength   = 100_000
	MaxBehaviorLength = 5_000
	MaxFrameworkLen   = 100
	MaxColorLength    = 100
	MaxBrandPalette   = 64
)

// HandlerOptions configures [NewHandler]. Nil means the defaults.
type HandlerOptions struct {
	// HTTPOptions: its RateLimiter counts the "api" throttle (60 a minute
	// per caller, else per client IP) shared by every route.
	groundwork.HTTPOptions
	// Prefix is where the handler is mounted; PrefixDefault when empty.
	// Mount it with mux.Handle(prefix+"/", h) (see Handler).
	Prefix string
	// APILimit is the "api" throttle's requests a minute per caller:
	// groundwork.APILimitDefault when zero, no limit when negative (for a
	// load test, or a host that limits in front).
	APILimit int
	// Tokens verifies bearer tokens. Required for the AI endpoints and
	// for RequireToken.
	Tokens     groundwork.TokenVerifier
	Authorizer groundwork.Authorizer
	// RequireToken puts the colour endpoints behind any valid token; by
	// default they are public.
	RequireToken bool
	// AI, when set, serves the AI endpoints under {prefix}/ai/.
	AI *AI
	// AIAbility is what the AI endpoints require; AIAbilityDefault when
	// empty.
	AIAbility string
	// MaxBodyBytes caps request bodies; 1 MiB when zero.
	MaxBodyBytes int64
}

// Handler serves the colour endpoints and, with AI, the AI endpoints:
//
//	POST {prefix}/contrast-check        {foreground, background[, level]} -> {ratio, is_accessible[, level]}
//	POST {prefix}/generate-text-color   {background_color} -> {text_color}
//	POST {prefix}/audit-palette         {colors} -> {results}
//	POST {prefix}/ai/content-analysis   bearer token with AIAbility
//	POST {prefix}/ai/aria-suggestion
//	POST {prefix}/ai/contrast-explanation
//
// contrast-check and generate-text-color take #rgb and #rrggbb (any case),
// rgb(r, g, b), hsl(h, s%, l%) and the palette's names; audit-palette
// takes #rgb and #rrggbb only (its rows echo the strings given, so it
// takes them unresolved). contrast-check's optional level is one
// of aa, aa-large, aaa, aaa-large and non-text (any case): is_accessible
// then answers for it, and the level is echoed; without one it answers
// for AA.
//
// Routes match the whole path, prefix included, so mount the handler at
// its prefix with a trailing slash, and name any other prefix in
// HandlerOptions.Prefix too (not with http.StripPrefix):
//
//	h, err := a11y.NewHandler(nil, &a11y.HandlerOptions{Prefix: "/colours"})
//	mux.Handle("/colours/", h) // POST /colours/contrast-check, ...
//
// A mux answers the bare prefix ("/colours") with a 307 redirect to
// "/colours/", where nothing is served either.
type Handler struct {
	svc     *Service
	ai      *AI
	base    *api.Base
	maxBody int64
}

// NewHandler returns the handler for svc (nil for Default).
func NewHandler(svc *Service, opts *HandlerOptions) (*Handler, error) {
	if svc == nil {
		svc = defaultService
	}
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	if (o.AI != nil || o.RequireToken) && o.Tokens == nil {
		return nil, errors.New("a11y: new handler: the AI endpoints and RequireToken need a TokenVerifier")
	}
	if o.AIAbility == "" {
		o.AIAbility = AIAbilityDefault
	}
	b, err := api.NewBase(o.Prefix, PrefixDefault, o.HTTPOptions)
	if err != nil {
		return nil, fmt.Errorf("a11y: new handler: %w", err)
	}
	b.Throttle = throttle.APIOf(b.Throttle.Limiter, o.APILimit, o.TrustedProxies, b.Logger)
	h := &Handler{svc: svc, ai: o.AI, base: b, maxBody: o.MaxBodyBytes}
	var guard *api.Guard
	if o.Tokens != nil {
		guard = &api.Guard{Tokens: o.Tokens, Authorizer: o.Authorizer, Logger: b.Logger}
	}
	route := func(path string, fn api.HandlerFunc, ability string, needsToken bool) {
		var next http.Handler = b.Throttle.Wrap(b.Func(fn))
		if needsToken {
			next = guard.Require(ability, next)
		}
		b.Handle(path, api.Methods{http.MethodPost: next.ServeHTTP})
	}
	route("/contrast-check", h.contrastCheck, "", o.RequireToken)
	route("/generate-text-color", h.generateTextColor, "", o.RequireToken)
	route("/audit-palette", h.auditPalette, "", o.RequireToken)
	if o.AI != nil {
		route("/ai/content-analysis", h.contentAnalysis, o.AIAbility, true)
		route("/ai/aria-suggestion", h.ariaSuggestion, o.AIAbility, true)
		route("/ai/contrast-explanation", h.contrastExplanation, o.AIAbility, true)
	}
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.base.ServeHTTP(w, r) }

// Routes lists the routes the handler serves, as "METHOD /path/{param}".
func (h *Handler) Routes() []string { return h.base.Routes() }

// isHexInput is the colour endpoints' rule: "#rgb" or "#rrggbb", any case.
func isHexInput(s string) bool {
	_, ok := parseHex(s)
	return ok && !strings.HasSuffix(s, "\n")
}

var textColorInput = regexp.MustCompile(`(?i)^(#([a-f0-9]{6}|[a-f0-9]{3})|rgb\(\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\)|hsl\(\s*\d+\s*,\s*\d+%\s*,\s*\d+%\s*\))$`)

// isTextColorInput accepts hex, rgb(), hsl() and the palette's names.
func (h *Handler) isTextColorInput(s string) bool {
	if textColorInput.MatchString(s) {
		return true
	}
	_, ok := h.svc.paletteMap()[strings.ToLower(s)]
	return ok
}

type contrastResult struct {
	Ratio        float64 `json:"ratio"`
	IsAccessible bool    `json:"is_accessible"`
	// Level is the level asked for; absent when none was (AA).
	Level Level `json:"level,omitempty"`
}

// levels are the contrast-check's levels, by name.
var levels = map[string]Level{string(AA): AA, string(AALarge): AALarge, string(AAA): AAA, string(AAALarge): AAALarge, string(NonText): NonText}

// colorField reads a colour for contrast-check: hex as always, and rgb(),
// hsl() and palette names as generate-text-color takes them, resolved to
// hex.
func (h *Handler) colorField(v *api.Validator, field string, val any) string {
	s, ok := v.String(field, val, api.StringRule{Required: true, Format: func(s string) bool { return isHexInput(s) || h.isTextColorInput(s) }})
	if !ok || isHexInput(s) {
		return s
	}
	hex, ok := h.svc.ResolveColor(s)
	if !ok {
		v.Add(field, api.MsgFormat(field))
	}
	return hex
}

func (h *Handler) contrastCheck(w http.ResponseWriter, r *http.Request) error {
	in, err := api.DecodeInput(w, r, h.maxBody)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	fg := h.colorField(v, "foreground", in["foreground"])
	bg := h.colorField(v, "background", in["background"])
	var level Level
	if name, ok := v.String("level", in["level"], api.StringRule{}); ok {
		if level, ok = levels[strings.ToLower(name)]; !ok {
			v.Add("level", api.MsgSelected("level"))
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	ratio, err := h.svc.ContrastRatio(fg, bg)
	if err != nil {
		return err
	}
	res := contrastResult{Ratio: ratio, IsAccessible: h.svc.CheckContrast(fg, bg, cmp.Or(level, AA)), Level: level}
	reply.WriteJSON(w, http.StatusOK, res)
	return nil
}

func (h *Handler) generateTextColor(w http.ResponseWriter, r *http.Request) error {
	in, err := api.DecodeInput(w, r, h.maxBody)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	bg, _ := v.String("background_color", in["background_color"], api.StringRule{Required: true, Max: MaxColorLength, Format: h.isTextColorInput})
	if err := v.Err(); err != nil {
		return err
	}
	reply.WriteJSON(w, http.StatusOK, map[string]string{"text_color": h.svc.GenerateAccessibleTextColor(bg, false)})
	return nil
}

func (h *Handler) auditPalette(w http.ResponseWriter, r *http.Request) error {
	in, err := api.DecodeInput(w, r, h.maxBody)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	items, ok := v.Array("colors", in["colors"], true, MaxPaletteColors)
	colors := make([]string, 0, len(items))
	if ok {
		for i, it := range items {
			field := "colors." + strconv.Itoa(i)
			if s, ok := v.String(field, it, api.StringRule{Required: true, Format: isHexInput}); ok {
				colors = append(colors, s)
			}
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	reply.WriteJSON(w, http.StatusOK, map[string]any{"results": h.svc.AuditPalette(colors)})
	return nil
}

// aiError is the answer to an AI feature's error, with its {"error": ...}
// body; generic is the message of an unexpected failure.
func aiError(f Feature, generic string, err error) error {
	var ie *InputError
	var status int
	var msg string
	switch {
	case errors.As(err, &ie):
		status, msg = http.StatusUnprocessableEntity, ie.Error()
	case errors.Is(err, ErrFeatureDisabled):
		status, msg = http.StatusForbidden, fmt.Sprintf("AI feature %q is disabled.", f)
	case errors.Is(err, ErrNoCredentials):
		status, msg = http.StatusServiceUnavailable, fmt.Sprintf("No AI credentials configured for feature %q.", f)
	case errors.Is(err, ErrProviderUnavailable):
		status, msg = http.StatusBadGateway, "The AI provider is currently unavailable."
	default:
		status, msg = http.StatusInternalServerError, generic
	}
	return &api.Error{Status: status, Body: map[string]string{"error": msg}, Err: fmt.Errorf("a11y: ai feature %s: %w", f, err)}
}

func (h *Handler) contentAnalysis(w http.ResponseWriter, r *http.Request) error {
	body, err := api.ReadJSONBody(w, r, h.maxBody)
	if err != nil {
		return err
	}
	in, err := api.DecodeInputBytes(body)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	content, _ := v.String("content", in["content"], api.StringRule{Required: true, Max: MaxContentLength})
	_, hasStructure := v.Object("structure", in["structure"], false)
	if err := v.Err(); err != nil {
		return err
	}
	req := ContentAnalysisRequest{Content: content}
	if hasStructure {
		var raw struct {
			Structure json.RawMessage `json:"structure"`
		}
		if err := json.Unmarshal(body, &raw); err != nil {
			return err
		}
		req.Structure = raw.Structure
	}
	out, err := h.ai.AnalyzeContent(r.Context(), req)
	if err != nil {
		return aiError(FeatureContentAnalysis, "Failed to analyze content.", err)
	}
	reply.WriteData(w, http.StatusOK, out)
	return nil
}

func (h *Handler) ariaSuggestion(w http.ResponseWriter, r *http.Request) error {
	in, err := api.DecodeInput(w, r, h.maxBody)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	markup, _ := v.String("markup", in["markup"], api.StringRule{Required: true, Max: MaxMarkupLength})
	behavior, _ := v.String("behavior", in["behavior"], api.StringRule{Required: true, Max: MaxBehaviorLength})
	framework, _ := v.String("framework", in["framework"], api.StringRule{Max: MaxFrameworkLen})
	existing, _ := v.Object("existing_aria", in["existing_aria"], false)
	if err := v.Err(); err != nil {
		return err
	}
	out, err := h.ai.SuggestAria(r.Context(), AriaRequest{Markup: markup, Behavior: behavior, Framework: framework, ExistingAria: existing})
	if err != nil {
		return aiError(FeatureAriaSuggestion, "Failed to suggest ARIA attributes.", err)
	}
	reply.WriteData(w, http.StatusOK, out)
	return nil
}

func (h *Handler) contrastExplanation(w http.ResponseWriter, r *http.Request) error {
	in, err := api.DecodeInput(w, r, h.maxBody)
	if err != nil {
		return err
	}
	v := &api.Validator{}
	fg, _ := v.String("foreground", in["foreground"], api.StringRule{Required: true, Max: MaxColorLength})
	bg, _ := v.String("background", in["background"], api.StringRule{Required: true, Max: MaxColorLength})
	context, _ := v.OneOf("context", in["context"], false, string(ContextBodyText), string(ContextLargeText), string(ContextUI))
	palette, _ := v.Array("brand_palette", in["brand_palette"], false, MaxBrandPalette)
	if err := v.Err(); err != nil {
		return err
	}
	req := ContrastRequest{Foreground: fg, Background: bg, Context: ContrastContext(context)}
	for _, p := range palette {
		if s, ok := p.(string); ok { // the original drops what is not a string
			req.BrandPalette = append(req.BrandPalette, s)
		}
	}
	out, err := h.ai.ExplainContrast(r.Context(), req)
	if err != nil {
		return aiError(FeatureContrastExplanation, "Failed to explain contrast failure.", err)
	}
	reply.WriteData(w, http.StatusOK, out)
	return nil
}

//go:embed openapi.json
var openAPIDescription []byte

// OpenAPI describes the routes the handler serves, under its prefix (the
// AI routes only when it serves them), as an OpenAPI 3.1 part to merge
// into a host's document; see groundwork.OpenAPI.
func (h *Handler) OpenAPI() (*groundwork.OpenAPI, error) {
	return openapi.Part(openAPIDescription, h.base.Prefix, PrefixDefault, h.Routes())
}
