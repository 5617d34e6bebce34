package ratelimittest

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

type answer struct {
	status int
	header http.Header
	body   map[string]any
}

func post(t *testing.T, p *Provider, prompt string, maxTokens int) answer {
	t.Helper()
	req, _ := json.Marshal(map[string]any{
		"model": "sim", "max_tokens": maxTokens,
		"messages": []any{map[string]any{"role": "user", "content": prompt}},
	})
	resp, err := http.Post(p.URL()+"/chat/completions", "application/json", strings.NewReader(string(req)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("decoding the answer: %v", err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: body}
}

func TestEnforcesRequestsPerMinute(t *testing.T) {
	t.Parallel()
	p := Start(Config{RPM: 120, Burst: time.Second}) // two a second, a bucket of two
	defer p.Close()
	for i := range 2 {
		if a := post(t, p, "hi", 16); a.status != 200 {
			t.Fatalf("request %d: status %d, want 200", i, a.status)
		}
	}
	a := post(t, p, "hi", 16)
	if a.status != 429 {
		t.Fatalf("third request: status %d, want 429", a.status)
	}
	ms, err := strconv.Atoi(a.header.Get("Retry-After-Ms"))
	if err != nil || ms < 100 || ms > 600 {
		t.Errorf("Retry-After-Ms = %q, want the ~500ms until a request refills", a.header.Get("Retry-After-Ms"))
	}
	if a.header.Get("X-Ratelimit-Limit-Requests") != "120" || a.header.Get("X-Ratelimit-Remaining-Requests") != "0" {
		t.Errorf("headers = %v, want limit 120, remaining 0", a.header)
	}
	if reset, err := time.ParseDuration(a.header.Get("X-Ratelimit-Reset-Requests")); err != nil || reset <= 0 || reset > time.Second {
		t.Errorf("x-ratelimit-reset-requests = %q, want a Go duration up to 1s", a.header.Get("X-Ratelimit-Reset-Requests"))
	}
	e, _ := a.body["error"].(map[string]any)
	if e["code"] != "rate_limit_exceeded" || e["type"] != "requests" {
		t.Errorf("error body = %v, want code rate_limit_exceeded, type requests", a.body)
	}
	time.Sleep(600 * time.Millisecond)
	if a := post(t, p, "hi", 16); a.status != 200 {
		t.Errorf("after the refill: status %d, want 200", a.status)
	}
	if s := p.Stats(); s.Requests != 4 || s.Accepted != 3 || s.Limited != 1 || s.LimitedRequests != 1 {
		t.Errorf("stats = %+v, want 4 requests, 3 accepted, 1 limited for requests", s)
	}
}

func TestEnforcesTokensPerMinute(t *testing.T) {
	t.Parallel()
	// 100 tokens a bucket, refilled at 10 a second: no delay a loaded machine adds between two
	// requests refills the 50 tokens a request costs. Each request costs 10 prompt + 40 reply
	// tokens.
	p := Start(Config{TPM: 600, Burst: 10 * time.Second, ReplyTokens: 40})
	defer p.Close()
	prompt := strings.Repeat("x", 40)
	for i := range 2 {
		a := post(t, p, prompt, 100)
		if a.status != 200 {
			t.Fatalf("request %d: status %d, want 200", i, a.status)
		}
		usage, _ := a.body["usage"].(map[string]any)
		if usage["prompt_tokens"] != 10.0 || usage["completion_tokens"] != 40.0 {
			t.Errorf("usage = %v, want 10 prompt and 40 completion tokens", usage)
		}
	}
	// What is left is less than a request costs; how much less depends on the time between the
	// requests, which is the machine's.
	if a := post(t, p, prompt, 100); a.status != 429 || remainingTokens(t, a) >= 50 {
		t.Errorf("third request: status %d, remaining tokens %q; want 429 and fewer than 50", a.status, a.header.Get("X-Ratelimit-Remaining-Tokens"))
	}
	// A reply bounded by max_tokens costs less (15 tokens, refilled in 1.5 s) and is cut with
	// finish_reason length.
	time.Sleep(2 * time.Second)
	a := post(t, p, "", 5)
	choices, _ := a.body["choices"].([]any)
	if a.status != 200 || len(choices) != 1 || choices[0].(map[string]any)["finish_reason"] != "length" {
		t.Errorf("bounded reply: status %d, body %v; want 200 cut at length", a.status, a.body)
	}
	if s := p.Stats(); s.LimitedTokens != 1 || s.Tokens != 2*50+5 {
		t.Errorf("stats = %+v, want one limited for tokens and 105 tokens accepted", s)
	}
}

func TestHeaderModes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		mode Headers
		want string
	}{{HeadersOpenAI, "60"}, {HeadersNone, ""}, {HeadersGarbage, "-1"}} {
		p := Start(Config{RPM: 60, Headers: tt.mode, NoRetryAfter: true})
		a := post(t, p, "hi", 16)
		p.Close()
		if got := a.header.Get("X-Ratelimit-Limit-Requests"); got != tt.want {
			t.Errorf("mode %d: x-ratelimit-limit-requests = %q, want %q", tt.mode, got, tt.want)
		}
	}
}

func TestLatencies(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	draws := make([]time.Duration, 4000)
	for i := range draws {
		draws[i] = LogNormal(200*time.Millisecond, 600*time.Millisecond)(r)
	}
	slices.Sort(draws)
	median, p95 := draws[len(draws)/2], draws[len(draws)*95/100]
	if median < 180*time.Millisecond || median > 220*time.Millisecond || p95 < 500*time.Millisecond || p95 > 700*time.Millisecond {
		t.Errorf("log-normal(200ms, 600ms): median %s, p95 %s", median, p95)
	}
	for range 100 {
		if d := Uniform(10*time.Millisecond, 20*time.Millisecond)(r); d < 10*time.Millisecond || d > 20*time.Millisecond {
			t.Fatalf("uniform draw %s outside [10ms, 20ms]", d)
		}
	}

	p := Start(Config{Latency: Fixed(50 * time.Millisecond)})
	defer p.Close()
	start := time.Now()
	if a := post(t, p, "hi", 16); a.status != 200 {
		t.Fatalf("status %d", a.status)
	}
	if took := time.Since(start); took < 50*time.Millisecond {
		t.Errorf("answered after %s, want at least the 50ms latency", took)
	}
}

func remainingTokens(t *testing.T, a answer) int {
	t.Helper()
	n, err := strconv.Atoi(a.header.Get("X-Ratelimit-Remaining-Tokens"))
	if err != nil {
		t.Fatalf("X-Ratelimit-Remaining-Tokens %q: %v", a.header.Get("X-Ratelimit-Remaining-Tokens"), err)
	}
	return n
}

// TestStorm: during a storm every request is refused with no rate-limit headers and no
// Retry-After, whatever the budget; accepted requests are counted by arrival.
func TestStorm(t *testing.T) {
	t.Parallel()
	p := Start(Config{RPM: 6000, Burst: time.Second})
	defer p.Close()
	start := time.Now()
	if a := post(t, p, "hi", 16); a.status != 200 {
		t.Fatalf("before the storm: status %d, want 200", a.status)
	}
	end := p.Storm(time.Hour)
	a := post(t, p, "hi", 16)
	if a.status != 429 {
		t.Fatalf("in the storm: status %d, want 429", a.status)
	}
	for _, h := range []string{"Retry-After", "Retry-After-Ms", "X-Ratelimit-Limit-Requests", "X-Ratelimit-Remaining-Requests"} {
		if v := a.header.Get(h); v != "" {
			t.Errorf("in the storm: %s = %q, want none", h, v)
		}
	}
	if s := p.Stats(); s.Accepted != 1 || s.Limited != 1 || s.Stormed != 1 {
		t.Errorf("stats = %+v, want 1 accepted, 1 limited by the storm", s)
	}
	if n := p.AcceptedBetween(start, end); n != 1 {
		t.Errorf("accepted between the start and the storm's end = %d, want 1", n)
	}
	if n := p.AcceptedBetween(end, end.Add(time.Hour)); n != 0 {
		t.Errorf("accepted after the storm = %d, want 0", n)
	}
}

// TestStormRetryAfter: with Config.StormRetryAfter a storm's 429s carry that Retry-After and
// still no rate-limit headers (issue 24's storm from the first request).
func TestStormRetryAfter(t *testing.T) {
	t.Parallel()
	p := Start(Config{RPM: 6000, Burst: time.Second, Headers: HeadersNone, StormRetryAfter: time.Second})
	defer p.Close()
	p.Storm(time.Hour)
	a := post(t, p, "hi", 16)
	if a.status != 429 || a.header.Get("Retry-After") != "1" || a.header.Get("X-Ratelimit-Limit-Requests") != "" {
		t.Fatalf("in the storm: status %d, Retry-After %q, x-ratelimit-limit-requests %q; want 429, 1 and none",
			a.status, a.header.Get("Retry-After"), a.header.Get("X-Ratelimit-Limit-Requests"))
	}
}

// Timeline counts what the provider accepted and refused in each step, storms included, from the
// time given: what cmd/bench --timeline writes.
func TestTimeline(t *testing.T) {
	t.Parallel()
	p := Start(Config{RPM: 120, Burst: time.Second}) // a bucket of two
	defer p.Close()
	start := time.Now()
	for range 3 { // two accepted, one refused
		post(t, p, "hi", 16)
	}
	p.Storm(time.Hour)
	post(t, p, "hi", 16)
	rows := p.Timeline(start, time.Hour)
	if len(rows) != 1 || rows[0].Accepted != 2 || rows[0].Refused != 2 || !rows[0].At.Equal(start) {
		t.Fatalf("timeline %+v, want one step from the start with 2 accepted and 2 refused", rows)
	}
	if later := p.Timeline(time.Now().Add(time.Minute), time.Second); len(later) != 0 {
		t.Errorf("timeline from after the last request: %+v, want none", later)
	}
}
