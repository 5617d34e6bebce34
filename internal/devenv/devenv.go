// Package devenv starts the real services Corroborate needs on a machine where none runs: an
// in-process nats-server with JetStream on loopback, and a throwaway PostgreSQL cluster from the
// local PostgreSQL binaries. Dev mode (worker --dev, make demo) and the tests use it; production
// never does.
package devenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// NATS is an in-process nats-server with JetStream.
type NATS struct {
	Server *server.Server
	// URL is where clients (enqueue, other workers) reach it: a loopback address.
	URL string

	dir  string
	port int
}

// StartNATS starts nats-server with JetStream storing in dir, on a free loopback port, or on
// port when it is not 0.
func StartNATS(dir string, port int) (*NATS, error) {
	if port == 0 {
		port = server.RANDOM_PORT
	}
	opts := &server.Options{
		ServerName: "corroborate-dev",
		JetStream:  true,
		StoreDir:   dir,
		Host:       "127.0.0.1",
		Port:       port,
		NoLog:      true,
		NoSigs:     true,
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("starting the in-process nats-server: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, errors.New("starting the in-process nats-server: not ready after 10s")
	}
	return &NATS{Server: ns, URL: ns.ClientURL(), dir: dir, port: ns.Addr().(*net.TCPAddr).Port}, nil
}

// Restart stops the server and starts a new one on the same port and store: what a client
// sees of a NATS server restart.
func (n *NATS) Restart(down time.Duration) error {
	n.Stop()
	time.Sleep(down)
	next, err := StartNATS(n.dir, n.port)
	if err != nil {
		return err
	}
	*n = *next
	return nil
}

// Stop shuts the server down and waits for it.
func (n *NATS) Stop() {
	n.Server.Shutdown()
	n.Server.WaitForShutdown()
}

// Postgres is a throwaway PostgreSQL cluster in a folder of its own.
type Postgres struct {
	Dir  string
	Port int
	// URL connects as the superuser "postgres" to the database "postgres", trust auth.
	URL string

	bin    string
	runAs  string
	logDir string
}

// StartPostgres creates a cluster in dir (initdb, once) and starts it on a free loopback port.
// As root, PostgreSQL refuses to run: the cluster then belongs to the "postgres" system user.
func StartPostgres(ctx context.Context, dir string) (*Postgres, error) {
	bin, err := postgresBinDir()
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	p := &Postgres{Dir: filepath.Join(dir, "data"), bin: bin, logDir: dir}
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root: use its own system user, else nobody.
		for _, name := range []string{"postgres", "nobody"} {
			if _, err := user.Lookup(name); err == nil {
				p.runAs = name
				break
			}
		}
		if p.runAs == "" {
			return nil, errors.New("running as root, PostgreSQL needs a system user to run as: create the user postgres, or run as another user")
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := p.chown(dir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "PG_VERSION")); err != nil {
		if out, err := p.command(ctx, "initdb", "-D", p.Dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("initdb in %s: %w\n%s", p.Dir, err, out)
		}
	}
	if p.Port, err = freePort(); err != nil {
		return nil, err
	}
	if err := p.Start(ctx); err != nil {
		return nil, err
	}
	p.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.Port)
	return p, nil
}

// Start starts the (stopped) cluster on its port again.
func (p *Postgres) Start(ctx context.Context) error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", p.Port, p.Dir)
	logFile := filepath.Join(p.logDir, "postgres.log")
	if out, err := p.command(ctx, "pg_ctl", "-D", p.Dir, "-l", logFile, "-o", opts, "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl start (log in %s): %w\n%s", logFile, err, out)
	}
	return nil
}

// Stop stops the cluster fast; its files stay in Dir.
func (p *Postgres) Stop() error {
	out, err := p.command(context.Background(), "pg_ctl", "-D", p.Dir, "-m", "fast", "-w", "stop").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
	}
	return nil
}

func (p *Postgres) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	path := filepath.Join(p.bin, name)
	if p.runAs != "" {
		return exec.CommandContext(ctx, "runuser", append([]string{"-u", p.runAs, "--", path}, args...)...)
	}
	return exec.CommandContext(ctx, path, args...)
}

// Own gives dir to the user the cluster runs as, so that it can hold a tablespace.
func (p *Postgres) Own(dir string) error { return p.chown(dir) }

func (p *Postgres) chown(dir string) error {
	if p.runAs == "" {
		return nil
	}
	u, err := user.Lookup(p.runAs)
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}

// postgresBinDir finds initdb and pg_ctl: $CORROBORATE_PG_BIN, then the newest
// /usr/lib/postgresql/*/bin, then $PATH.
func postgresBinDir() (string, error) {
	if dir := os.Getenv("CORROBORATE_PG_BIN"); dir != "" {
		return dir, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if path, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(path), nil
	}
	return "", errors.New("no PostgreSQL binaries found (initdb, pg_ctl): install PostgreSQL, set CORROBORATE_PG_BIN to their folder, or set DATABASE_URL")
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(strings.Split(filepath.Base(filepath.Dir(binDir)), ".")[0])
	return v
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// PostgresBinDir is the folder of the PostgreSQL binaries StartPostgres uses (initdb, pg_ctl,
// and beside them createdb and psql): $CORROBORATE_PG_BIN, the newest /usr/lib/postgresql/*/bin,
// or the one on $PATH.
func PostgresBinDir() (string, error) { return postgresBinDir() }
