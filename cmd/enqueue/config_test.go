package main

import (
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
)

// validate says what is wrong with the flags, every problem at once, before anything is read.
func TestConfigValidate(t *testing.T) {
	t.Parallel()
	valid := func() Config {
		return Config{NATSURL: "nats://127.0.0.1:4222", Method: pipeline.MethodMultihop}
	}
	methods := strings.Join(pipeline.MethodNames(), ", ")
	tests := []validateCase[Config]{
		{"defaults", func(*Config) {}, nil, ""},
		{"wait with a database", func(c *Config) { c.Wait, c.DatabaseURL = true, "postgres://127.0.0.1/x" }, nil, ""},
		{"unknown method", func(c *Config) { c.Method = "cove-guess" }, nil,
			`--method "cove-guess" is not a method; use one of ` + methods},
		{"no NATS", func(c *Config) { c.NATSURL = "" }, nil, noNATS},
		{"wait without a database", func(c *Config) { c.Wait = true }, nil,
			"--wait reads outcomes from PostgreSQL: set DATABASE_URL or --database-url"},
		{"bad stream settings", func(c *Config) { c.Stream.Replicas = 9 }, nil,
			"jobs stream configuration: replicas 9 must be between 1 and 5"},
		{"every problem at once, in one error", func(c *Config) {
			c.Method, c.NATSURL, c.Wait, c.Stream.Replicas = "", "", true, 9
		}, nil, `--method "" is not a method; use one of ` + methods + "; " + noNATS +
			"; --wait reads outcomes from PostgreSQL: set DATABASE_URL or --database-url" +
			"; jobs stream configuration: replicas 9 must be between 1 and 5"},
	}
	checkValidate(t, valid, func(c *Config, _ []string) error { return c.validate() }, tests)
}

// enqueue retry says what is wrong with its flags, every problem at once, before it reads the
// database or --ids.
func TestRetryConfigValidate(t *testing.T) {
	t.Parallel()
	valid := func() RetryConfig {
		return RetryConfig{NATSURL: "nats://127.0.0.1:4222", DatabaseURL: "postgres://127.0.0.1/x", Statuses: "failed,dead"}
	}
	methods := strings.Join(pipeline.MethodNames(), ", ")
	tests := []validateCase[RetryConfig]{
		{"defaults", func(*RetryConfig) {}, nil, ""},
		{"every option set", func(c *RetryConfig) {
			c.Statuses, c.Since, c.Method, c.Limit, c.IDsFile = " dead ", time.Hour, pipeline.MethodJoint, 3, "ids.txt"
		}, nil, ""},
		{"a dry run needs no NATS", func(c *RetryConfig) { c.NATSURL, c.DryRun = "", true }, nil, ""},
		{"no NATS", func(c *RetryConfig) { c.NATSURL = "" }, nil, noNATS + " (or --dry-run, which publishes nothing)"},
		{"no database", func(c *RetryConfig) { c.DatabaseURL = "" }, nil, "no database: set DATABASE_URL or --database-url"},
		{"arguments", func(*RetryConfig) {}, []string{"ids.txt"},
			`unexpected arguments ["ids.txt"] (retry selects jobs from PostgreSQL; flags only, --ids for a list)`},
		{"rejected", func(c *RetryConfig) { c.Statuses = "failed,rejected" }, nil,
			"--status rejected: a rejected job broke a rule of the job message and would be rejected again; fix its input and enqueue it anew"},
		{"unknown status", func(c *RetryConfig) { c.Statuses = "done" }, nil, `--status "done": use failed, dead or failed,dead`},
		{"empty status", func(c *RetryConfig) { c.Statuses = " , " }, nil, "--status is empty: use failed, dead or failed,dead"},
		{"negative since", func(c *RetryConfig) { c.Since = -time.Hour }, nil,
			"--since -1h0m0s: give a positive duration such as 24h, or 0 for any time"},
		{"unknown method", func(c *RetryConfig) { c.Method = "magic" }, nil, `--method "magic" is not a method; use one of ` + methods},
		{"negative limit", func(c *RetryConfig) { c.Limit = -1 }, nil, "--limit -1: give 0 (all) or more"},
		{"bad stream settings", func(c *RetryConfig) { c.Stream.Replicas = 9 }, nil,
			"jobs stream configuration: replicas 9 must be between 1 and 5"},
		{"half a client certificate", func(c *RetryConfig) { c.NATSConn.TLSCert = "cert.pem" }, nil,
			"NATS connection: --nats-tls-cert and --nats-tls-key go together: give both"},
		{"every problem at once, in one error", func(c *RetryConfig) {
			c.NATSURL, c.DatabaseURL, c.Statuses, c.Since, c.Limit = "", "", "done", -time.Hour, -1
		}, []string{"x"}, `unexpected arguments ["x"] (retry selects jobs from PostgreSQL; flags only, --ids for a list)` +
			"; " + noNATS + " (or --dry-run, which publishes nothing)" +
			"; no database: set DATABASE_URL or --database-url" +
			`; --status "done": use failed, dead or failed,dead` +
			"; --since -1h0m0s: give a positive duration such as 24h, or 0 for any time" +
			"; --limit -1: give 0 (all) or more"},
	}
	checkValidate(t, valid, (*RetryConfig).validate, tests)
}

// enqueue reverify says what is wrong with its flags, every problem at once, before it reads the
// database.
func TestReverifyConfigValidate(t *testing.T) {
	t.Parallel()
	valid := func() ReverifyConfig {
		return ReverifyConfig{NATSURL: "nats://127.0.0.1:4222", DatabaseURL: "postgres://127.0.0.1/x", OlderThan: 24 * time.Hour}
	}
	methods := strings.Join(pipeline.MethodNames(), ", ")
	verdicts := strings.Join(store.Verdicts, ", ")
	tests := []validateCase[ReverifyConfig]{
		{"defaults", func(*ReverifyConfig) {}, nil, ""},
		{"every option set", func(c *ReverifyConfig) {
			c.Verdict, c.Method, c.ExternalIDPrefix, c.Limit = pipeline.VerdictRefuted, pipeline.MethodCove2, "desk-", 10
		}, nil, ""},
		{"a dry run needs no NATS", func(c *ReverifyConfig) { c.NATSURL, c.DryRun = "", true }, nil, ""},
		{"no NATS", func(c *ReverifyConfig) { c.NATSURL = "" }, nil, noNATS + " (or --dry-run, which publishes nothing)"},
		{"no database", func(c *ReverifyConfig) { c.DatabaseURL = "" }, nil, "no database: set DATABASE_URL or --database-url"},
		{"arguments", func(*ReverifyConfig) {}, []string{"backlog.csv"},
			`unexpected arguments ["backlog.csv"] (reverify selects statements from PostgreSQL; flags only)`},
		{"no age", func(c *ReverifyConfig) { c.OlderThan = 0 }, nil, "--older-than 0s: give a positive duration such as 24h"},
		{"unknown verdict", func(c *ReverifyConfig) { c.Verdict = "true" }, nil, `--verdict "true" is not a verdict; use one of ` + verdicts},
		{"unknown method", func(c *ReverifyConfig) { c.Method = "magic" }, nil, `--method "magic" is not a method; use one of ` + methods},
		{"negative limit", func(c *ReverifyConfig) { c.Limit = -5 }, nil, "--limit -5: give 0 (all) or more"},
		{"bad stream settings", func(c *ReverifyConfig) { c.Stream.Replicas = 9 }, nil,
			"jobs stream configuration: replicas 9 must be between 1 and 5"},
		{"every problem at once, in one error", func(c *ReverifyConfig) {
			c.DatabaseURL, c.OlderThan, c.Verdict, c.Method = "", -time.Hour, "true", "magic"
		}, nil, "no database: set DATABASE_URL or --database-url" +
			"; --older-than -1h0m0s: give a positive duration such as 24h" +
			`; --verdict "true" is not a verdict; use one of ` + verdicts +
			`; --method "magic" is not a method; use one of ` + methods},
	}
	checkValidate(t, valid, (*ReverifyConfig).validate, tests)
}

// validateCase is one case of a command's validate: a change to a valid configuration, the
// arguments left after the flags, and the whole error it must give (empty: none).
type validateCase[C any] struct {
	name   string
	change func(c *C)
	args   []string
	want   string
}

// checkValidate runs the cases of a command's validate, each from a fresh valid configuration.
func checkValidate[C any](t *testing.T, valid func() C, validate func(*C, []string) error, tests []validateCase[C]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := valid()
			tt.change(&c)
			got := ""
			if err := validate(&c, tt.args); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("validate() = %q\nwant         %q", got, tt.want)
			}
		})
	}
}
