// Package envflag gives every command-line flag an environment twin: a flag not given on the
// command line takes its variable's value, and --help lists both. Values from the environment
// are parsed like the flag's, and a bad one is reported with the variable's name.
package envflag

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/exitcode"
)

// Set is a flag.FlagSet whose flags have environment twins.
type Set struct {
	*flag.FlagSet
	env map[string]string // flag name -> variable
	// secrets are variables read from the environment only (no flag, where a value would show in
	// the process list), in the order --help lists them.
	secrets []secretVar
	// also are variables read from the environment only that are not secret (a folder of data
	// sets), in the order --help lists them.
	also []secretVar
	// exits are the exit statuses --help lists (ExitStatuses).
	exits []exitcode.Status
}

type secretVar struct{ name, usage string }

// Secret names a variable the command reads from the environment only, such as an API key, so
// that --help lists it with the flags' twins.
func (s *Set) Secret(name, usage string) {
	s.secrets = append(s.secrets, secretVar{name, usage})
}

// Env names a variable the command reads from the environment only that is not a secret (such
// as CORROBORATE_DATASETS), so that --help lists it.
func (s *Set) Env(name, usage string) {
	s.also = append(s.also, secretVar{name, usage})
}

// ExitStatuses sets the exit statuses --help lists, in their order: the command's own use of
// package exitcode's statuses (exitcode.Common(), or exitcode.Of for each).
func (s *Set) ExitStatuses(statuses ...exitcode.Status) {
	s.exits = statuses
}

// New returns an empty Set for the named command; summary heads its --help.
func New(name, summary string) *Set {
	s := &Set{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), env: map[string]string{}}
	s.Usage = func() {
		out := s.Output()
		fmt.Fprintf(out, "%s\n\nFlags (each has an environment twin; a flag given on the command line wins):\n", summary)
		s.VisitAll(func(f *flag.Flag) {
			name, usage := flag.UnquoteUsage(f)
			line := "  --" + f.Name
			if name != "" {
				line += " " + name
			}
			if v := s.env[f.Name]; v != "" {
				line += "   [$" + v + "]"
			}
			fmt.Fprintln(out, line)
			fmt.Fprintf(out, "        %s", strings.ReplaceAll(usage, "\n", "\n        "))
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
				fmt.Fprintf(out, " (default %q)", f.DefValue)
			}
			fmt.Fprintln(out)
		})
		if len(s.secrets) > 0 {
			fmt.Fprintln(out, "\nEnvironment only (never a flag, where a value would show in the process list):")
			for _, v := range s.secrets {
				fmt.Fprintf(out, "  $%s\n        %s\n", v.name, v.usage)
			}
		}
		if len(s.also) > 0 {
			fmt.Fprintln(out, "\nAlso read from the environment:")
			for _, v := range s.also {
				fmt.Fprintf(out, "  $%s\n        %s\n", v.name, v.usage)
			}
		}
		if len(s.exits) > 0 {
			fmt.Fprint(out, "\n"+exitcode.Help(s.exits))
		}
	}
	return s
}

// String defines a string flag with an environment twin.
func (s *Set) String(p *string, name, env, def, usage string) {
	s.StringVar(p, name, def, usage)
	s.env[name] = env
}

// Int defines an int flag with an environment twin.
func (s *Set) Int(p *int, name, env string, def int, usage string) {
	s.IntVar(p, name, def, usage)
	s.env[name] = env
}

// Bool defines a bool flag with an environment twin.
func (s *Set) Bool(p *bool, name, env string, def bool, usage string) {
	s.BoolVar(p, name, def, usage)
	s.env[name] = env
}

// Duration defines a duration flag with an environment twin.
func (s *Set) Duration(p *time.Duration, name, env string, def time.Duration, usage string) {
	s.DurationVar(p, name, def, usage)
	s.env[name] = env
}

// Parse parses args, then fills every flag not given on the command line from its environment
// variable when that is set. Every bad environment value is reported in one error.
func (s *Set) Parse(args []string) error {
	if err := s.FlagSet.Parse(args); err != nil {
		return err
	}
	given := map[string]bool{}
	s.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var problems []string
	names := make([]string, 0, len(s.env))
	for name := range s.env {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		variable := s.env[name]
		value, ok := os.LookupEnv(variable)
		if given[name] || !ok || variable == "" {
			continue
		}
		if err := s.Set(name, value); err != nil {
			problems = append(problems, fmt.Sprintf("$%s=%q: %v", variable, value, err))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("bad environment: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Given reports whether the flag was set on the command line or by its environment twin.
func (s *Set) Given(name string) bool {
	if _, ok := os.LookupEnv(s.env[name]); ok && s.env[name] != "" {
		return true
	}
	found := false
	s.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// Strings defines a comma-separated list flag with an environment twin.
func (s *Set) Strings(p *[]string, name, env string, def []string, usage string) {
	*p = append([]string(nil), def...)
	s.Var(&stringList{p: p}, name, usage)
	s.env[name] = env
}

// stringList is a comma-separated flag value; setting it replaces the default.
type stringList struct{ p *[]string }

func (l *stringList) String() string {
	if l.p == nil {
		return ""
	}
	return strings.Join(*l.p, ",")
}

func (l *stringList) Set(v string) error {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	if len(out) == 0 {
		return fmt.Errorf("empty list")
	}
	*l.p = out
	return nil
}

// Float defines a float64 flag with an environment twin.
func (s *Set) Float(p *float64, name, env string, def float64, usage string) {
	s.Float64Var(p, name, def, usage)
	s.env[name] = env
}
