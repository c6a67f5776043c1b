// Package a11yai connects the AI features of package a11y to Anthropic,
// OpenAI or Ollama through langchaingo. It lives apart so that a program
// importing a11y for its colour functions does not link langchaingo.
//
//	ai, err := a11yai.NewAI(nil, &a11yai.Options{
//		AIOptions: a11y.AIOptions{Provider: a11y.ProviderAnthropic},
//		APIKey:    os.Getenv("ANTHROPIC_API_KEY"),
//	})
//	h, err := a11y.NewHandler(nil, &a11y.HandlerOptions{AI: ai, Tokens: tokens})
//
// Every option is passed to langchaingo explicitly, so ambient OPENAI_*,
// ANTHROPIC_* or OLLAMA_HOST variables never redirect a call.
package a11yai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/groundwork-go/groundwork/a11y"
)

// Default addresses of the providers.
const (
	// OpenAIBaseURLDefault is OpenAI's API.
	OpenAIBaseURLDefault = "https://api.openai.com/v1"
	// OllamaBaseURLDefault is a local Ollama server.
	OllamaBaseURLDefault = "http://127.0.0.1:11434"
)

// Options configures [NewAI]: the options of a11y.NewAI, whose Provider
// also picks the client here, and the provider's credentials.
type Options struct {
	a11y.AIOptions
	// APIKey is required for anthropic and openai. Without it NewAI makes
	// no client, and the features answer a11y.ErrNoCredentials.
	APIKey string
	// BaseURL replaces the provider's address, e.g. for a proxy or a
	// local server; the defaults above (and Anthropic's own) when empty.
	BaseURL string
	// HTTPClient carries the provider calls; http.DefaultClient when nil.
	HTTPClient *http.Client
}

// NewAI returns a11y's AI features answering through the provider named
// by opts.Provider. With no provider, or no API key for one that needs
// it, the features answer a11y.ErrNoCredentials; an opts.Completer given
// by the caller wins over both.
func NewAI(svc *a11y.Service, opts *Options) (*a11y.AI, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	needsKey := o.Provider != a11y.ProviderOllama
	if o.Completer == nil && o.Provider != "" && (o.APIKey != "" || !needsKey) {
		c, err := NewCompleter(o.Provider, o.APIKey, o.BaseURL, o.HTTPClient)
		if err != nil {
			return nil, fmt.Errorf("a11yai: new ai: %w", err)
		}
		o.Completer = c
	}
	return a11y.NewAI(svc, &o.AIOptions)
}

// completer sends completions through a langchaingo model.
type completer struct {
	provider a11y.Provider
	model    llms.Model
}

// NewCompleter returns an a11y.Completer for provider ("anthropic",
// "openai" or "ollama") at baseURL (the provider's own when empty),
// sending through hc (http.DefaultClient when nil).
func NewCompleter(provider a11y.Provider, apiKey, baseURL string, hc *http.Client) (a11y.Completer, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	baseURL = strings.TrimSuffix(baseURL, "/")
	// Each call names its model; this one only satisfies the constructors.
	model := a11y.DefaultModel(provider, a11y.FeatureContentAnalysis)
	var (
		m   llms.Model
		err error
	)
	switch provider {
	case a11y.ProviderAnthropic:
		opts := []anthropic.Option{anthropic.WithToken(apiKey), anthropic.WithHTTPClient(hc), anthropic.WithModel(model)}
		if baseURL != "" {
			opts = append(opts, anthropic.WithBaseURL(baseURL))
		}
		m, err = anthropic.New(opts...)
	case a11y.ProviderOpenAI:
		m, err = openai.New(openai.WithToken(apiKey), openai.WithHTTPClient(hc), openai.WithModel(model),
			openai.WithBaseURL(cmp.Or(baseURL, OpenAIBaseURLDefault)))
	case a11y.ProviderOllama:
		m, err = ollama.New(ollama.WithServerURL(cmp.Or(baseURL, OllamaBaseURLDefault)), ollama.WithHTTPClient(hc), ollama.WithModel(model))
	default:
		return nil, fmt.Errorf("unknown provider %q (anthropic, openai or ollama)", provider)
	}
	if err != nil {
		return nil, fmt.Errorf("%s client: %w", provider, err)
	}
	return &completer{provider: provider, model: m}, nil
}

// Complete implements a11y.Completer.
func (l *completer) Complete(ctx context.Context, c a11y.Completion) (string, error) {
	opts := []llms.CallOption{llms.WithModel(c.Model), llms.WithMaxTokens(c.MaxTokens), llms.WithTemperature(c.Temperature)}
	if c.JSON && l.provider != a11y.ProviderAnthropic {
		// Anthropic has no JSON mode; langchaingo would ignore it.
		opts = append(opts, llms.WithJSONMode())
	}
	resp, err := l.model.GenerateContent(ctx, []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, c.System),
		llms.TextParts(llms.ChatMessageTypeHuman, c.Prompt),
	}, opts...)
	if err != nil {
		return "", err
	}
	if len(resp.Choices) == 0 {
		return "", errors.New("the model returned no choice")
	}
	return resp.Choices[0].Content, nil
}
