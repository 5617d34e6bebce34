package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// Local servers take any placeholder key ("x"); it is no secret, and removing every "x" from
// an error message would make the message unreadable.
func TestPlaceholderKeyDoesNotMangleErrors(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Fail("", 500, llmtest.ErrorBody("the box exploded", "server_error", "x_error"))
	c, err := llm.New(llm.Config{APIKey: "x", BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), pipeline.ModelRequest{Prompt: "p"})
	if err == nil || !strings.Contains(err.Error(), "the box exploded") {
		t.Fatalf("got %v", err)
	}
}
