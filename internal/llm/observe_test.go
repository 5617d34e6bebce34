package llm_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// observed is what an OnResponse hook saw: one entry per HTTP response.
type observed struct {
	mu       sync.Mutex
	statuses []int
	limits   []string
	callIDs  []any
}

type callIDKey struct{}

func (o *observed) hook(ctx context.Context, status int, header http.Header) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.statuses = append(o.statuses, status)
	o.limits = append(o.limits, header.Get("X-Ratelimit-Limit-Requests"))
	o.callIDs = append(o.callIDs, ctx.Value(callIDKey{}))
}

// TestOnResponse checks that the hook sees every response, successful ones included, with their
// headers and the caller's context, and each attempt openai-go retries on its own.
func TestOnResponse(t *testing.T) {
	t.Parallel()
	var o observed
	b := setup(t, func(c *llm.Config) {
		c.OnResponse = o.hook
		c.MaxRetries = 1
	})
	b.srv.Fail("", 429, "").Header("Retry-After-Ms", "1").Header("X-Ratelimit-Limit-Requests", "60").Once()
	b.srv.Reply("", "ok").Header("X-Ratelimit-Limit-Requests", "60")

	ctx := context.WithValue(context.Background(), callIDKey{}, "call-1")
	reply, err := b.client.Complete(ctx, pipeline.ModelRequest{Prompt: "p"})
	if err != nil || reply.Text != "ok" {
		t.Fatalf("Complete = %q, %v; want ok after one retry", reply.Text, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if want := []int{429, 200}; !slices.Equal(o.statuses, want) {
		t.Errorf("statuses seen = %v, want %v", o.statuses, want)
	}
	if want := []string{"60", "60"}; !slices.Equal(o.limits, want) {
		t.Errorf("x-ratelimit-limit-requests seen = %q, want %q", o.limits, want)
	}
	for i, id := range o.callIDs {
		if id != "call-1" {
			t.Errorf("response %d: context value = %v, want the caller's call-1", i, id)
		}
	}
}

// TestOnResponseNotCalledWithoutResponse checks that a request that got no HTTP answer reaches
// no hook: there is no status to report.
func TestOnResponseNotCalledWithoutResponse(t *testing.T) {
	t.Parallel()
	var o observed
	b := setup(t, func(c *llm.Config) { c.OnResponse = o.hook })
	b.srv.Close()
	if _, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Prompt: "p"}); err == nil {
		t.Fatal("Complete against a closed server succeeded")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.statuses) != 0 {
		t.Errorf("hook saw statuses %v, want none", o.statuses)
	}
}
