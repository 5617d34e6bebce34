package envflag

import (
	"testing"
	"time"
)

func TestWindowTakesDays(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "36h": 36 * time.Hour, "0": 0, "0d": 0} {
		var d time.Duration
		s := New("t", "test")
		s.Window(&d, "reuse-within", "EF_REUSE_WITHIN", 0, "window")
		if err := s.Parse([]string{"--reuse-within", in}); err != nil || d != want {
			t.Errorf("--reuse-within %s = %v, %v; want %v", in, d, err, want)
		}
	}
	var d time.Duration
	s := New("t", "test")
	s.Window(&d, "reuse-within", "EF_REUSE_WITHIN", 0, "window")
	if err := s.Parse([]string{"--reuse-within", "a week"}); err == nil {
		t.Error("--reuse-within 'a week' was accepted")
	}
	t.Setenv("EF_REUSE_WITHIN", "2d")
	s = New("t", "test")
	s.Window(&d, "reuse-within", "EF_REUSE_WITHIN", 0, "window")
	if err := s.Parse(nil); err != nil || d != 48*time.Hour {
		t.Errorf("$EF_REUSE_WITHIN=2d = %v, %v; want 48h", d, err)
	}
}
