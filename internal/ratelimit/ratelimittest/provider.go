// Package ratelimittest is a simulated model provider for rate-limit tests and benchmarks: an
// OpenAI-compatible chat completions server (real HTTP, so the real openai-go client and the
// llm adapter are exercised) that enforces requests and tokens per minute the way OpenAI does.
// It speaks the protocol through llmtest (DecodeRequest, WriteResponse, ErrorBody, Tokens), the
// project's one fake OpenAI server, and adds only the simulation: buckets, 429s, headers, latency.
// A request that does not fit the budget gets a real 429 with Retry-After-Ms, and every
// response carries x-ratelimit-* headers (or none, or garbage, as configured); accepted requests
// are answered after a latency drawn from a distribution.
//
// Each limit is a bucket that holds Burst worth of the per-minute limit (a minute by default,
// like OpenAI; shorter to make the limit bite at once) and refills continuously. A request is
// charged one request and its real token cost (prompt tokens plus the reply's tokens, counted
// as bytes / 4) when it arrives; a request that would overdraw either bucket is refused and
// charged nothing.
//
// Storm makes the provider refuse every request for a while, as an overloaded server or proxy
// does: 429 with neither rate-limit headers nor Retry-After.
package ratelimittest

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/corroborate/corroborate/internal/llm/llmtest"
)

// Headers is how the provider reports its limits.
type Headers int

const (
	// HeadersOpenAI sends x-ratelimit-limit-*, -remaining-* and -reset-* the way OpenAI does.
	HeadersOpenAI Headers = iota
	// HeadersNone sends no rate-limit headers: the client learns from 429s alone.
	HeadersNone
	// HeadersGarbage sends the headers with values no client can use ("-1", "soon", "NaN").
	HeadersGarbage
)

// Config is the simulated provider's behaviour. The zero value is a provider without limits
// that answers at once.
type Config struct {
	// RPM and TPM are the limits per minute; 0 means none.
	RPM, TPM int
	// Burst is how much of a minute's budget a bucket holds when full; 0 means a minute.
	Burst time.Duration
	// Latency draws the time an accepted request takes; nil means none. See Fixed, Uniform and
	// LogNormal.
	Latency func(r *rand.Rand) time.Duration
	// Headers selects the rate-limit headers sent; the zero value sends OpenAI's.
	Headers Headers
	// NoRetryAfter leaves Retry-After-Ms and Retry-After out of 429s.
	NoRetryAfter bool
	// StormRetryAfter, when set, is the Retry-After (in whole seconds) of a Storm's 429s; 0 means
	// they carry none.
	StormRetryAfter time.Duration
	// Reply computes the reply to a prompt; nil means a reply of ReplyTokens tokens.
	Reply func(prompt string) string
	// ReplyTokens is the length of the default reply; 0 means 32.
	ReplyTokens int
	// Seed seeds the latency draws.
	Seed uint64
}

// Fixed is a latency of exactly d.
func Fixed(d time.Duration) func(*rand.Rand) time.Duration {
	return func(*rand.Rand) time.Duration { return d }
}

// Uniform is a latency drawn evenly from [lo, hi].
func Uniform(lo, hi time.Duration) func(*rand.Rand) time.Duration {
	return func(r *rand.Rand) time.Duration {
		if hi <= lo {
			return lo
		}
		return lo + time.Duration(r.Int64N(int64(hi-lo)+1))
	}
}

// LogNormal is a latency with the given median and 95th percentile, the long-tailed shape of
// real model latencies.
func LogNormal(median, p95 time.Duration) func(*rand.Rand) time.Duration {
	sigma := 0.0
	if p95 > median && median > 0 {
		sigma = math.Log(float64(p95)/float64(median)) / 1.6448536269514722
	}
	mu := math.Log(float64(max(median, 1)))
	return func(r *rand.Rand) time.Duration {
		return time.Duration(math.Exp(mu + sigma*r.NormFloat64()))
	}
}

// Stats counts what the provider received and did.
type Stats struct {
	// Requests is every chat completions request; Accepted those answered 200; Limited those
	// answered 429, of which LimitedRequests for lack of requests and LimitedTokens for lack of
	// tokens (a request short of both counts in both), and Stormed during a Storm.
	Requests, Accepted, Limited, LimitedRequests, LimitedTokens, Stormed int64
	// Tokens is the token cost of accepted requests, PromptTokens and CompletionTokens its parts.
	Tokens, PromptTokens, CompletionTokens int64
	// MaxInFlight is the most requests the provider was answering at once.
	MaxInFlight int
}

// Provider is a running simulated provider.
type Provider struct {
	cfg  Config
	http *httptest.Server
	done chan struct{}
	stop sync.Once

	mu       sync.Mutex
	rng      *rand.Rand
	buckets  [2]*bucket // requests, tokens; nil when unlimited
	inFlight int
	stats    Stats
	storm    [2]time.Time // every request is refused in [storm[0], storm[1])
	accepted []time.Time  // when each accepted request arrived
	refused  []time.Time  // when each request answered 429 arrived, storms included
}

// Storm makes the provider refuse every request for d from now: 429, with no rate-limit headers
// and no Retry-After unless Config.StormRetryAfter (an overloaded server knows no better). It
// returns when the storm ends.
func (p *Provider) Storm(d time.Duration) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	p.storm = [2]time.Time{now, now.Add(d)}
	return p.storm[1]
}

// AcceptedBetween counts the requests accepted that arrived in [from, to).
func (p *Provider) AcceptedBetween(from, to time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	lo, _ := slices.BinarySearchFunc(p.accepted, from, time.Time.Compare)
	hi, _ := slices.BinarySearchFunc(p.accepted, to, time.Time.Compare)
	return hi - lo
}

// Second is what the provider answered to the requests that arrived in one step of a Timeline.
type Second struct {
	At                time.Time
	Accepted, Refused int
}

// Timeline counts the requests accepted and refused (storms included) in each step from from
// until the last request: where a limiter's 429s came from, in a benchmark's run.
func (p *Provider) Timeline(from time.Time, step time.Duration) []Second {
	p.mu.Lock()
	defer p.mu.Unlock()
	var rows []Second
	at := func(t time.Time) int {
		i := int(t.Sub(from) / step)
		for len(rows) <= i {
			rows = append(rows, Second{At: from.Add(time.Duration(len(rows)) * step)})
		}
		return i
	}
	for _, t := range p.accepted {
		if !t.Before(from) {
			i := at(t)
			rows[i].Accepted++
		}
	}
	for _, t := range p.refused {
		if !t.Before(from) {
			i := at(t)
			rows[i].Refused++
		}
	}
	return rows
}

// Start starts a provider; Close stops it.
func Start(cfg Config) *Provider {
	cfg.Burst = cmp.Or(cfg.Burst, time.Minute)
	cfg.ReplyTokens = cmp.Or(cfg.ReplyTokens, 32)
	p := &Provider{cfg: cfg, done: make(chan struct{}), rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))}
	now := time.Now()
	for i, limit := range []int{cfg.RPM, cfg.TPM} {
		if limit > 0 {
			p.buckets[i] = newBucket(float64(limit), cfg.Burst, now)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", p.serveChat)
	mux.HandleFunc("/chat/completions", p.serveChat)
	p.http = httptest.NewServer(mux)
	return p
}

// URL is the base URL to give the client (llm.Config.BaseURL).
func (p *Provider) URL() string { return p.http.URL + "/v1" }

// Close stops the provider; requests still waiting for their latency are abandoned.
func (p *Provider) Close() {
	p.stop.Do(func() {
		close(p.done)
		p.http.Close()
	})
}

// Stats returns the counts so far.
func (p *Provider) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// bucket is one limit: level units available, refilled at perSecond up to capacity.
type bucket struct {
	limit     float64 // per minute, for the headers
	perSecond float64
	capacity  float64
	level     float64
	last      time.Time
}

func newBucket(perMinute float64, burst time.Duration, now time.Time) *bucket {
	capacity := max(perMinute*burst.Minutes(), 1)
	return &bucket{limit: perMinute, perSecond: perMinute / 60, capacity: capacity, level: capacity, last: now}
}

func (b *bucket) advance(now time.Time) {
	if now.After(b.last) {
		b.level = min(b.capacity, b.level+now.Sub(b.last).Seconds()*b.perSecond)
		b.last = now
	}
}

// wait is how long until n units are available; 0 when they are.
func (b *bucket) wait(n float64) time.Duration {
	if b.level >= n {
		return 0
	}
	return time.Duration((n - b.level) / b.perSecond * float64(time.Second))
}

// reset is how long until the bucket is full again: OpenAI's x-ratelimit-reset-*.
func (b *bucket) reset() time.Duration {
	return time.Duration((b.capacity - b.level) / b.perSecond * float64(time.Second)).Round(time.Millisecond)
}

func (p *Provider) serveChat(w http.ResponseWriter, r *http.Request) {
	req, refusal, ok := llmtest.DecodeRequest(r)
	if !ok {
		llmtest.WriteResponse(w, req, refusal)
		return
	}
	reply := p.reply(req.Prompt)
	finish := "stop"
	if limit := cmp.Or(ptr(req.MaxCompletionTokens), ptr(req.MaxTokens)); limit > 0 && llmtest.Tokens(reply) > limit {
		reply, finish = reply[:limit*4], "length"
	}
	// The cost charged is the usage llmtest.WriteResponse reports for this reply.
	promptTokens, replyTokens := llmtest.Tokens(req.Prompt), llmtest.Tokens(reply)
	cost := [2]float64{1, float64(promptTokens + replyTokens)}

	now := time.Now()
	p.mu.Lock()
	p.stats.Requests++
	if !now.Before(p.storm[0]) && now.Before(p.storm[1]) {
		p.stats.Limited++
		p.stats.Stormed++
		p.refused = append(p.refused, now)
		p.mu.Unlock()
		h := http.Header{}
		if p.cfg.StormRetryAfter > 0 {
			h.Set("Retry-After", strconv.Itoa(int(p.cfg.StormRetryAfter.Seconds())))
		}
		llmtest.WriteResponse(w, req, llmtest.Response{Status: http.StatusTooManyRequests, Header: h, Body: llmtest.ErrorBody(
			"The server is overloaded. Please try again later.", "requests", "rate_limit_exceeded")})
		return
	}
	var short [2]bool
	var wait time.Duration
	for i, b := range p.buckets {
		if b == nil {
			continue
		}
		b.advance(now)
		if d := b.wait(cost[i]); d > 0 {
			short[i], wait = true, max(wait, d)
		}
	}
	accepted := !short[0] && !short[1]
	if accepted {
		for i, b := range p.buckets {
			if b != nil {
				b.level -= cost[i]
			}
		}
		p.stats.Accepted++
		p.accepted = append(p.accepted, now)
		p.stats.Tokens += promptTokens + replyTokens
		p.stats.PromptTokens += promptTokens
		p.stats.CompletionTokens += replyTokens
		p.inFlight++
		p.stats.MaxInFlight = max(p.stats.MaxInFlight, p.inFlight)
	} else {
		p.stats.Limited++
		p.refused = append(p.refused, now)
		if short[0] {
			p.stats.LimitedRequests++
		}
		if short[1] {
			p.stats.LimitedTokens++
		}
	}
	header := p.headersLocked()
	var latency time.Duration
	if accepted && p.cfg.Latency != nil {
		latency = max(p.cfg.Latency(p.rng), 0)
	}
	p.mu.Unlock()

	if !accepted {
		if !p.cfg.NoRetryAfter {
			wait = max(wait, time.Millisecond)
			header.Set("Retry-After-Ms", strconv.FormatInt(wait.Milliseconds()+1, 10))
			header.Set("Retry-After", strconv.FormatInt(int64(math.Ceil(wait.Seconds())), 10))
		}
		kind := "requests"
		if !short[0] {
			kind = "tokens"
		}
		llmtest.WriteResponse(w, req, llmtest.Response{Status: http.StatusTooManyRequests, Header: header, Body: llmtest.ErrorBody(
			fmt.Sprintf("Rate limit reached for %s per min: limit %s. Please try again in %s.", kind, header.Get("X-Ratelimit-Limit-"+kind), wait.Round(time.Millisecond)),
			kind, "rate_limit_exceeded")})
		return
	}
	defer func() {
		p.mu.Lock()
		p.inFlight--
		p.mu.Unlock()
	}()
	if latency > 0 {
		t := time.NewTimer(latency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-p.done:
			return
		}
	}
	llmtest.WriteResponse(w, req, llmtest.Response{Text: reply, FinishReason: finish, Header: header})
}

func ptr(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func (p *Provider) reply(prompt string) string {
	if p.cfg.Reply != nil {
		return p.cfg.Reply(prompt)
	}
	return strings.Repeat("word", p.cfg.ReplyTokens)
}

// headersLocked renders the rate-limit headers of the buckets' state now.
func (p *Provider) headersLocked() http.Header {
	h := http.Header{}
	for i, name := range []string{"requests", "tokens"} {
		b := p.buckets[i]
		if b == nil {
			continue
		}
		switch p.cfg.Headers {
		case HeadersOpenAI:
			h.Set("X-Ratelimit-Limit-"+name, strconv.FormatInt(int64(b.limit), 10))
			h.Set("X-Ratelimit-Remaining-"+name, strconv.FormatInt(int64(math.Max(b.level, 0)), 10))
			h.Set("X-Ratelimit-Reset-"+name, b.reset().String())
		case HeadersGarbage:
			h.Set("X-Ratelimit-Limit-"+name, "-1")
			h.Set("X-Ratelimit-Remaining-"+name, "NaN")
			h.Set("X-Ratelimit-Reset-"+name, "soon")
		}
	}
	return h
}
