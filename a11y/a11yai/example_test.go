package a11yai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/groundwork-go/groundwork/a11y"
	"github.com/groundwork-go/groundwork/a11y/a11yai"
)

// An OpenAI-compatible server (here a stand-in answering one canned
// review) explains why two colours fail.
func ExampleNewAI() {
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer := `{"explanation":"Mid grey on light grey is too faint to read.","suggested_alternatives":[]}`
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "1", "object": "chat.completion", "model": "gpt-4.1-mini",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}}})
	}))
	defer provider.Close()

	ai, err := a11yai.NewAI(nil, &a11yai.Options{
		AIOptions: a11y.AIOptions{Provider: a11y.ProviderOpenAI},
		APIKey:    "sk-example",
		BaseURL:   provider.URL + "/v1",
	})
	if err != nil {
		panic(err)
	}
	out, err := ai.ExplainContrast(context.Background(), a11y.ContrastRequest{Foreground: "#888888", Background: "#999999"})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Explanation)
	fmt.Println(len(out.SuggestedAlternatives) >= 2) // made up locally when the model offers fewer than two
	// Output:
	// Mid grey on light grey is too faint to read.
	// true
}
