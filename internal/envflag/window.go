package envflag

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Window defines a duration flag with an environment twin that also takes whole days ("7d"),
// the unit a freshness window is said in; Go durations ("36h", "90m") and 0 work as well.
func (s *Set) Window(p *time.Duration, name, env string, def time.Duration, usage string) {
	*p = def
	s.Var((*window)(p), name, usage)
	s.env[name] = env
}

type window time.Duration

func (w *window) String() string {
	if w == nil {
		return "0"
	}
	d := time.Duration(*w)
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	return d.String()
}

func (w *window) Set(v string) error {
	v = strings.TrimSpace(v)
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a number of days (say 7d, 36h or 0)", v)
		}
		*w = window(time.Duration(n) * 24 * time.Hour)
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a window (say 7d, 36h or 0)", v)
	}
	*w = window(d)
	return nil
}
