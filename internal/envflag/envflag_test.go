package envflag

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestFlagWinsOverEnvironmentAndEnvironmentOverDefault(t *testing.T) {
	t.Setenv("EF_MODEL", "from-env")
	t.Setenv("EF_CONCURRENCY", "12")
	t.Setenv("EF_TIMEOUT", "3s")
	s := New("test", "test")
	var model string
	var concurrency int
	var timeout time.Duration
	var dev bool
	s.String(&model, "model", "EF_MODEL", "default", "the model")
	s.Int(&concurrency, "concurrency", "EF_CONCURRENCY", 1, "jobs at once")
	s.Duration(&timeout, "timeout", "EF_TIMEOUT", time.Second, "timeout")
	s.Bool(&dev, "dev", "EF_DEV_UNSET", false, "dev mode")
	if err := s.Parse([]string{"--model", "from-flag"}); err != nil {
		t.Fatal(err)
	}
	if model != "from-flag" || concurrency != 12 || timeout != 3*time.Second || dev {
		t.Fatalf("model %q concurrency %d timeout %v dev %v", model, concurrency, timeout, dev)
	}
	if !s.Given("concurrency") || s.Given("dev") {
		t.Fatal("Given must see the environment and the command line")
	}
}

func TestBadEnvironmentValueNamesTheVariable(t *testing.T) {
	t.Setenv("EF_BAD_INT", "lots")
	s := New("test", "test")
	var n int
	s.Int(&n, "n", "EF_BAD_INT", 1, "n")
	err := s.Parse(nil)
	if err == nil || !strings.Contains(err.Error(), "$EF_BAD_INT") {
		t.Fatalf("got %v", err)
	}
}

func TestHelpListsTheTwins(t *testing.T) {
	t.Parallel()
	s := New("test", "Summary line.")
	var v string
	s.String(&v, "nats-url", "NATS_URL", "nats://127.0.0.1:4222", "NATS server")
	var out bytes.Buffer
	s.SetOutput(&out)
	s.Usage()
	if !strings.Contains(out.String(), "--nats-url string   [$NATS_URL]") || !strings.Contains(out.String(), "Summary line.") {
		t.Fatalf("help:\n%s", out.String())
	}
}
