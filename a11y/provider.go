package a11y

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
)

// langChainCompleter sends completions through a langchaingo model. Every
// option is passed explicitly, so that ambient OPENAI_*, ANTHROPIC_* or
// OLLAMA_HOST variables can never redirect a call.
type langChainCompleter struct {
	provider string
	model    llms.Model
}

func newLangChainCompleter(provider, apiKey, baseURL string, hc *http.Client) (Completer, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	var (
		m   llms.Model
		err error
	)
	switch provider {
	case ProviderAnthropic:
		opts := []anthropic.Option{anthropic.WithToken(apiKey), anthropic.WithHTTPClient(hc), anthropic.WithModel(defaultModels[provider][FeatureContentAnalysis])}
		if baseURL != "" {
			opts = append(opts, anthropic.WithBaseURL(strings.TrimSuffix(baseURL, "/")))
		}
		m, err = anthropic.New(opts...)
	case ProviderOpenAI:
		opts := []openai.Option{openai.WithToken(apiKey), openai.WithHTTPClient(hc), openai.WithModel(defaultModels[provider][FeatureContentAnalysis])}
		if baseURL != "" {
			opts = append(opts, openai.WithBaseURL(strings.TrimSuffix(baseURL, "/")))
		} else {
			opts = append(opts, openai.WithBaseURL("https://api.openai.com/v1"))
		}
		m, err = openai.New(opts...)
	case ProviderOllama:
		if baseURL == "" {
			baseURL = "http://127.0.0.1:11434"
		}
		m, err = ollama.New(ollama.WithServerURL(baseURL), ollama.WithHTTPClient(hc), ollama.WithModel(defaultModels[provider][FeatureContentAnalysis]))
	default:
		return nil, fmt.Errorf("unknown provider %q", provider)
	}
	if err != nil {
		return nil, fmt.Errorf("%s client: %w", provider, err)
	}
	return &langChainCompleter{provider: provider, model: m}, nil
}

// Complete implements Completer.
func (l *langChainCompleter) Complete(ctx context.Context, c Completion) (string, error) {
	opts := []llms.CallOption{llms.WithModel(c.Model), llms.WithMaxTokens(c.MaxTokens), llms.WithTemperature(c.Temperature)}
	if c.JSON && l.provider != ProviderAnthropic {
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
