package envflag

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/exitcode"
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

// --help lists the flags' twins, the secrets, the other variables read from the environment and
// the exit statuses, each in its own section.
func TestHelpListsEnvironmentAndExitStatuses(t *testing.T) {
	s := New("test", "Usage: test [flags]")
	var out bytes.Buffer
	s.SetOutput(&out)
	var url string
	s.String(&url, "database-url", "DATABASE_URL", "", "PostgreSQL URL")
	s.Secret("OPENAI_API_KEY", "the key")
	s.Env("CORROBORATE_DATASETS", "the data sets")
	s.ExitStatuses(exitcode.Of(exitcode.OK, ""), exitcode.Of(exitcode.Usage, "nothing loaded"))
	if err := s.Parse([]string{"--help"}); err == nil {
		t.Fatal("--help must return flag.ErrHelp")
	}
	help := out.String()
	for _, want := range []string{
		"--database-url string   [$DATABASE_URL]",
		"Environment only (never a flag, where a value would show in the process list):\n  $OPENAI_API_KEY\n        the key\n",
		"Also read from the environment:\n  $CORROBORATE_DATASETS\n        the data sets\n",
		"Exit status:\n  0  done\n  2  bad usage, configuration or input (an empty input file included): nothing was done; fix it before running again\n     here: nothing loaded\n",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q:\n%s", want, help)
		}
	}
	if i, j := strings.Index(help, "Also read"), strings.Index(help, "Exit status"); i < 0 || j < i {
		t.Errorf("exit statuses must come last:\n%s", help)
	}
}
