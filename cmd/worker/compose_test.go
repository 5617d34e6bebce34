package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/corroborate/corroborate/internal/testenv"
)

// composeService is what the test reads of a docker-compose.yml service.
type composeService struct {
	Image       string            `yaml:"image"`
	Build       any               `yaml:"build"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Ports       []string          `yaml:"ports"`
	Volumes     []string          `yaml:"volumes"`
	WorkingDir  string            `yaml:"working_dir"`
	Restart     string            `yaml:"restart"`
	Profiles    []string          `yaml:"profiles"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
}

type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

// readCompose parses docker-compose.yml (anchors and merge keys resolved, as Compose does).
// Docker does not run here: this test is what keeps the file correct.
func readCompose(t *testing.T) composeFile {
	t.Helper()
	raw, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f composeFile
	if err := yaml.Unmarshal(raw, &f); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return f
}

// interpolation matches ${VAR:-default}, which Compose reads as default when VAR is unset.
var interpolation = regexp.MustCompile(`\$\{([A-Z0-9_]+):-([^}]*)\}`)

// withDefaults replaces every ${VAR:-default} in s by its default.
func withDefaults(s string) string { return interpolation.ReplaceAllString(s, "$2") }

// The services a user needs are there; ports do not clash with a local PostgreSQL or NATS and
// listen on loopback only; the tools read a mounted backlog folder; a worker without a key (or
// with a refused one) cannot crash-loop, because the configuration is checked once by migrate,
// which the workers wait for.
func TestDockerComposeServices(t *testing.T) {
	t.Parallel()
	f := readCompose(t)
	var names []string
	for name := range f.Services {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{"corpus-load", "enqueue", "migrate", "nats", "postgres", "report", "worker"}; !slices.Equal(names, want) {
		t.Fatalf("services %v, want %v", names, want)
	}

	// Ports: loopback only, none on the standard ports of a local PostgreSQL or NATS.
	taken := map[int]string{5432: "PostgreSQL", 4222: "NATS", 8222: "NATS monitoring", 6222: "NATS cluster"}
	seen := map[int]string{}
	for name, s := range f.Services {
		for _, p := range s.Ports {
			parts := strings.Split(withDefaults(p), ":")
			if len(parts) != 3 || parts[0] != "127.0.0.1" {
				t.Errorf("%s: port %q: publish on 127.0.0.1 only (127.0.0.1:HOST:CONTAINER)", name, p)
				continue
			}
			host, err := strconv.Atoi(parts[1])
			if err != nil {
				t.Errorf("%s: port %q: host port %q is not a number", name, p, parts[1])
				continue
			}
			if what, ok := taken[host]; ok {
				t.Errorf("%s: host port %d clashes with a local %s", name, host, what)
			}
			if other, ok := seen[host]; ok {
				t.Errorf("%s and %s both publish host port %d", name, other, host)
			}
			seen[host] = name
		}
	}

	// Named volumes are declared; the tools mount a backlog folder where they run.
	for name, s := range f.Services {
		for _, v := range s.Volumes {
			src, _, _ := strings.Cut(withDefaults(v), ":")
			if !strings.HasPrefix(src, ".") && !strings.HasPrefix(src, "/") {
				if _, ok := f.Volumes[src]; !ok {
					t.Errorf("%s mounts volume %q, which volumes: does not declare", name, src)
				}
			}
		}
	}
	for _, name := range []string{"enqueue", "corpus-load"} {
		s := f.Services[name]
		mounted := slices.ContainsFunc(s.Volumes, func(v string) bool {
			parts := strings.Split(withDefaults(v), ":")
			return len(parts) >= 2 && parts[0] == "./backlog" && parts[1] == s.WorkingDir
		})
		if s.WorkingDir == "" || !mounted {
			t.Errorf("%s must run in a mounted ./backlog folder (working_dir %q, volumes %v)", name, s.WorkingDir, s.Volumes)
		}
		if !slices.Contains(s.Profiles, "tools") {
			t.Errorf("%s is a tool run on demand: profile tools", name)
		}
	}

	// No crash loop without a key: migrate runs once and the workers wait for it to succeed.
	migrate := f.Services["migrate"]
	if !slices.Equal(migrate.Command, []string{"migrate"}) || migrate.Restart != "no" {
		t.Errorf("migrate: command %v restart %q, want [migrate] and \"no\"", migrate.Command, migrate.Restart)
	}
	for _, name := range []string{"worker", "report"} {
		s := f.Services[name]
		if s.DependsOn["migrate"].Condition != "service_completed_successfully" {
			t.Errorf("%s must wait for migrate: depends_on migrate condition service_completed_successfully", name)
		}
		if s.Restart == "always" || s.Restart == "unless-stopped" || !strings.HasPrefix(s.Restart, "on-failure:") {
			t.Errorf("%s: restart %q would restart an exit 2 for ever; use on-failure:N", name, s.Restart)
		}
	}
	for _, name := range []string{"migrate", "worker"} {
		env := f.Services[name].Environment
		for _, v := range []string{"DATABASE_URL", "NATS_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "CORROBORATE_MODEL"} {
			if _, ok := env[v]; !ok {
				t.Errorf("%s does not set %s", name, v)
			}
		}
	}

	// The NATS image is the release CI tests besides the machine's 2.9 (.ci/run).
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^nats_server_version=\$\{[A-Z_]+:-v([0-9.]+)\}`).FindSubmatch(ci)
	if m == nil {
		t.Fatal(".ci/run does not set nats_server_version")
	}
	if img := f.Services["nats"].Image; !strings.HasPrefix(img, "nats:"+string(m[1])) {
		t.Errorf("nats image %q is not the release CI tests (%s)", img, m[1])
	}
}

// Every command, subcommand, flag and variable docker-compose.yml gives Corroborate's image
// exists: the command's own --help lists it.
func TestDockerComposeCommandsExist(t *testing.T) {
	t.Parallel()
	f := readCompose(t)
	dockerfile, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dockerfile), "./cmd/...") || !strings.Contains(string(dockerfile), `ENTRYPOINT ["/usr/local/bin/worker"]`) {
		t.Fatal("the Dockerfile must build every command (./cmd/...) into /usr/local/bin with the worker as entrypoint")
	}
	bins := t.TempDir()
	build := testenv.Command(t, buildTimeout, "go", "build", "-o", bins+"/", "../enqueue", "../report", "../corpus")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	checked := 0
	for name, s := range f.Services {
		if s.Build == nil {
			continue
		}
		argv := append(slices.Clone(s.Entrypoint), s.Command...)
		if len(s.Entrypoint) == 0 {
			argv = append([]string{"/usr/local/bin/worker"}, s.Command...)
		}
		command := path.Base(argv[0])
		if !strings.HasPrefix(argv[0], "/usr/local/bin/") {
			t.Errorf("%s: entrypoint %q is not a command of the image", name, argv[0])
			continue
		}
		if _, err := os.Stat(filepath.Join("..", command)); err != nil {
			t.Errorf("%s: no command cmd/%s", name, command)
			continue
		}
		// The words before the first flag are subcommands: their --help lists the flags.
		args := argv[1:]
		sub := args[:slices.IndexFunc(append(args, "--"), func(a string) bool { return strings.HasPrefix(a, "-") })]
		help, code := commandHelp(t, bins, command, sub)
		if code != 0 {
			t.Errorf("%s: %s %s --help: exit %d (no such subcommand?)\n%s", name, command, strings.Join(sub, " "), code, help)
			continue
		}
		for _, a := range args {
			if flag, ok := strings.CutPrefix(a, "--"); ok && !strings.Contains(help, "--"+flag+" ") && !strings.Contains(help, "--"+flag+"\n") {
				t.Errorf("%s: %s %s has no flag --%s", name, command, strings.Join(sub, " "), flag)
			}
		}
		for v := range s.Environment {
			if !strings.Contains(help, "$"+v) {
				t.Errorf("%s: %s %s reads no $%s (its --help does not list it)", name, command, strings.Join(sub, " "), v)
			}
		}
		checked++
	}
	if checked != 5 {
		t.Errorf("checked %d services of Corroborate's image, want 5", checked)
	}
}

// commandHelp returns the --help of command with its subcommand words, and the exit status.
func commandHelp(t *testing.T, bins, command string, sub []string) (string, int) {
	t.Helper()
	args := append(slices.Clone(sub), "--help")
	if command == "worker" {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		return stdout.String() + stderr.String(), code
	}
	out, err := testenv.Command(t, 30*time.Second, filepath.Join(bins, command), args...).CombinedOutput()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exitErr):
		return string(out), exitErr.ExitCode()
	}
	t.Fatal(fmt.Errorf("%s: %w", command, err))
	return "", 0
}
