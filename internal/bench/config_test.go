package bench

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// validConfig is the configuration of the defaults.
func validConfig() Config {
	return Config{RPM: 2400, TPM: 400000, ProviderBurst: time.Second, Latency: 200 * time.Millisecond, LatencyP95: 400 * time.Millisecond,
		Statements: 300, UnboundStatements: 200, Checks: 3, Workers: []string{"1", "2", "4"}, Concurrency: 8, MemoryConcurrency: 64,
		Modes: []string{modeConfigured, modeLearned}, Headers: "openai", Storm: 30 * time.Second, StormAfter: 20 * time.Second}
}

// validate lists every problem of the configuration in one error, and returns the numbers of
// workers.
func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		change  func(*Config)
		workers []int
		modes   []string
		says    []string
	}{
		{"the defaults", func(*Config) {}, []int{1, 2, 4}, []string{modeConfigured, modeLearned}, nil},
		{"workers with spaces", func(c *Config) { c.Workers = []string{" 1", "16 "} }, []int{1, 16}, nil, nil},
		{"mode none: only the unbound runs", func(c *Config) { c.Modes = []string{"none"} }, []int{1, 2, 4}, []string{}, nil},
		{"no limits", func(c *Config) { c.RPM, c.TPM = 0, 10 }, nil, nil, []string{"--rpm 0 and --tpm 10 must be positive"}},
		{"too few statements", func(c *Config) { c.UnboundStatements = 9 }, nil, nil, []string{"--unbound-statements 9 must be at least 10"}},
		{"checks", func(c *Config) { c.Checks = 11 }, nil, nil, []string{"--checks 11 must be between 1 and 10"}},
		{"p95 below the median", func(c *Config) { c.LatencyP95 = 100 * time.Millisecond }, nil, nil, []string{"--latency-p95 100ms at least as long"}},
		{"burst", func(c *Config) { c.ProviderBurst = time.Millisecond }, nil, nil, []string{"--provider-burst 1ms must be at least 10ms"}},
		{"workers", func(c *Config) { c.Workers = []string{"2", "17", "x"} }, nil, nil, []string{`--workers "17"`, `--workers "x"`}},
		{"modes", func(c *Config) { c.Modes = []string{"learnt"} }, nil, nil, []string{`--modes "learnt": each must be configured or learned`}},
		{"negative storm", func(c *Config) { c.StormAfter = -time.Second }, nil, nil, []string{"must not be negative"}},
		{"headers", func(c *Config) { c.Headers = "anthropic" }, nil, nil, []string{`--provider-headers "anthropic" must be openai, none or garbage`}},
		{"every problem at once", func(c *Config) { c.Checks, c.Headers, c.Concurrency = 0, "", 0 }, nil, nil,
			[]string{"--checks 0", "--concurrency 0 must be positive", `--provider-headers ""`}},
	} {
		cfg := validConfig()
		tt.change(&cfg)
		workers, err := cfg.validate()
		if tt.says == nil {
			if err != nil || !slices.Equal(workers, tt.workers) || (tt.modes != nil && !slices.Equal(cfg.Modes, tt.modes)) {
				t.Errorf("%s: workers %v, modes %v, error %v; want workers %v, modes %v", tt.name, workers, cfg.Modes, err, tt.workers, tt.modes)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error, want one saying %q", tt.name, tt.says)
			continue
		}
		for _, s := range tt.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q does not say %q", tt.name, err, s)
			}
		}
	}
}

// The reuse backlog has the statements asked for, the share of repeats asked for (verbatim, then
// reworded), a near-miss in every ten distinct claims after the first ten, and the same backlog
// for the same seed.
func TestReuseBacklog(t *testing.T) {
	t.Parallel()
	cfg := reuseConfig{Statements: 200, Repeat: 0.4, Verbatim: 0.5, Seed: 1}
	items := reuseBacklog(cfg)
	kinds := map[string]int{}
	for _, it := range items {
		kinds[it.kind]++
		if !strings.Contains(it.text, it.entity) {
			t.Errorf("item %+v: its text does not name its subject", it)
		}
	}
	// 200 statements: 80 repeats (40 verbatim, 40 reworded), 120 distinct, of which the items
	// 20, 30, ..., 110 (10 of them) are near-misses.
	want := map[string]int{itemFirst: 110, itemNearMiss: 10, itemVerbatim: 40, itemReworded: 40}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d %s items, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
	again := reuseBacklog(cfg)
	if !slices.Equal(items, again) {
		t.Error("the same seed built another backlog")
	}
	cfg.Seed = 2
	if slices.Equal(items, reuseBacklog(cfg)) {
		t.Error("another seed built the same backlog")
	}
}
