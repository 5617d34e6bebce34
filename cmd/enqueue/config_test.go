package main

import (
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// validate says what is wrong with the flags, every problem at once, before anything is read.
func TestConfigValidate(t *testing.T) {
	t.Parallel()
	valid := func() Config {
		return Config{NATSURL: "nats://127.0.0.1:4222", Method: pipeline.MethodMultihop}
	}
	methods := strings.Join(pipeline.MethodNames(), ", ")
	tests := []struct {
		name   string
		change func(c *Config)
		want   string // the whole error; empty: none
	}{
		{"defaults", func(*Config) {}, ""},
		{"wait with a database", func(c *Config) { c.Wait, c.DatabaseURL = true, "postgres://127.0.0.1/x" }, ""},
		{"unknown method", func(c *Config) { c.Method = "cove-guess" },
			`--method "cove-guess" is not a method; use one of ` + methods},
		{"no NATS", func(c *Config) { c.NATSURL = "" }, noNATS},
		{"wait without a database", func(c *Config) { c.Wait = true },
			"--wait reads outcomes from PostgreSQL: set DATABASE_URL or --database-url"},
		{"bad stream settings", func(c *Config) { c.Stream.Replicas = 9 },
			"jobs stream configuration: replicas 9 must be between 1 and 5"},
		{"every problem at once, in one error", func(c *Config) {
			c.Method, c.NATSURL, c.Wait, c.Stream.Replicas = "", "", true, 9
		}, `--method "" is not a method; use one of ` + methods + "; " + noNATS +
			"; --wait reads outcomes from PostgreSQL: set DATABASE_URL or --database-url" +
			"; jobs stream configuration: replicas 9 must be between 1 and 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := valid()
			tt.change(&c)
			got := ""
			if err := c.validate(); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("validate() = %q\nwant         %q", got, tt.want)
			}
		})
	}
}
