package ratelimit

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Defaults of Config, applied by New.
const (
	DefaultMaxRetries = 3
	DefaultDecrease   = 0.7
	DefaultRecovery   = 30 * time.Second
	DefaultHeadroom   = 0.03
	DefaultPause      = time.Second
	DefaultMaxPause   = 30 * time.Second
)

// Config configures a Limiter for one provider.
type Config struct {
	// Name names the provider in errors, logs, stats and shared-budget keys ("model",
	// "search-web"); empty means "model".
	Name string
	// RequestsPerMinute, TokensPerMinute and MaxConcurrent are the limits; 0 means unknown:
	// requests and tokens are then learned from headers and 429s, concurrency is unbounded.
	RequestsPerMinute int
	TokensPerMinute   int
	MaxConcurrent     int
	// DefaultMaxTokens is the reply bound used to estimate a request that sets none (the model
	// client's own default); 0 means pipeline.DefaultMaxTokens, the model adapter's default.
	DefaultMaxTokens int
	// MaxRetries is how often a call answered by a transient 429 is retried here, after the
	// pause, before its error is returned; 0 means DefaultMaxRetries, negative means never.
	MaxRetries int
	// Decrease is the factor a 429 cuts the pace by, in (0, 1); 0 means DefaultDecrease.
	Decrease float64
	// Recovery is how long the pace takes to climb back after a cut; 0 means DefaultRecovery.
	Recovery time.Duration
	// Headroom is how far below a known ceiling the pace runs, as a fraction in [0, 0.5); 0
	// means DefaultHeadroom.
	Headroom float64
	// Pause is the first pause after a 429 that says nothing of when to come back, doubled for
	// each 429 in a row up to MaxPause; 0 means DefaultPause and DefaultMaxPause.
	Pause, MaxPause time.Duration
	// Shared, when set, is the budget this Limiter shares with other workers' Limiters of the
	// same Name.
	Shared *Shared
	// Clock tells the time and sleeps; nil means the system clock. Tests give a fake one.
	Clock Clock
	// Logger receives warnings (the shared budget unreachable); nil means none.
	Logger *slog.Logger
}

// WithDefaults returns c with every unset field at its default: the one place defaults live.
func (c Config) WithDefaults() Config {
	c.Name = cmp.Or(c.Name, "model")
	c.DefaultMaxTokens = cmp.Or(c.DefaultMaxTokens, pipeline.DefaultMaxTokens)
	c.MaxRetries = cmp.Or(c.MaxRetries, DefaultMaxRetries)
	c.Decrease = cmp.Or(c.Decrease, DefaultDecrease)
	c.Recovery = cmp.Or(c.Recovery, DefaultRecovery)
	c.Headroom = cmp.Or(c.Headroom, DefaultHeadroom)
	c.Pause = cmp.Or(c.Pause, DefaultPause)
	c.MaxPause = cmp.Or(c.MaxPause, max(DefaultMaxPause, c.Pause))
	if c.Clock == nil {
		c.Clock = systemClock{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Validate lists every problem of a defaulted c in one error.
func (c Config) Validate() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if c.RequestsPerMinute < 0 {
		bad("requests per minute %d is negative", c.RequestsPerMinute)
	}
	if c.TokensPerMinute < 0 {
		bad("tokens per minute %d is negative", c.TokensPerMinute)
	}
	if c.MaxConcurrent < 0 {
		bad("max concurrent %d is negative", c.MaxConcurrent)
	}
	if c.DefaultMaxTokens < 0 {
		bad("default max tokens %d is negative", c.DefaultMaxTokens)
	}
	if !(c.Decrease > 0 && c.Decrease < 1) {
		bad("decrease %g must be between 0 and 1", c.Decrease)
	}
	if c.Recovery < 0 {
		bad("recovery %s is negative", c.Recovery)
	}
	if !(c.Headroom >= 0 && c.Headroom < 0.5) {
		bad("headroom %g must be in [0, 0.5)", c.Headroom)
	}
	if c.Pause < 0 || c.MaxPause < c.Pause {
		bad("pause %s must be positive and at most max pause %s", c.Pause, c.MaxPause)
	}
	if len(problems) > 0 {
		return fmt.Errorf("ratelimit %s: invalid configuration: %s", c.Name, strings.Join(problems, "; "))
	}
	return nil
}

// Clock is the time source of a Limiter.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx ends (returning its error).
	Sleep(ctx context.Context, d time.Duration) error
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
