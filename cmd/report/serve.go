package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/report"
	"github.com/corroborate/corroborate/internal/store"
)

type serveConfig struct {
	DatabaseURL   string
	Addr          string
	PageSize      int
	Auth          string
	AuthHeader    string
	SecureCookies bool
	Publisher     publisherFlags
	recheckConfig
}

func serveFlags(c *serveConfig) *envflag.Set {
	fs := envflag.New("report serve", "Usage: report serve [flags]\n\n"+
		"Serves the report's pages live from PostgreSQL, read-only (every query runs in a read-only\n"+
		"transaction; there is no route that changes anything): / lists statements with search by\n"+
		"text and filters by verdict, status and date; /statements/<id> and /traces/<run> as in the\n"+
		"static report.\n\n"+
		"With --auth accounts (editors sign in with the secret of `report users add NAME`) or --auth proxy\n"+
		"(a trusted reverse proxy names the signed-in editor in --auth-header), signed-in editors can\n"+
		"approve, override or send back a claim's verdict; those decisions are the only thing it writes\n"+
		"(editor_decisions). Without --auth it is read-only and has no login: keep it on loopback or\n"+
		"behind your own authenticating proxy.")
	fs.String(&c.DatabaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL")
	fs.String(&c.Addr, "addr", "CORROBORATE_REPORT_ADDR", "127.0.0.1:8080", "address to listen on")
	fs.Int(&c.PageSize, "page-size", "CORROBORATE_REPORT_PAGE_SIZE", 50, "statements per page of the list")
	fs.String(&c.Auth, "auth", "CORROBORATE_REPORT_AUTH", "none", "none (read-only), accounts (editors sign in) or proxy (a trusted proxy names the editor)")
	fs.String(&c.AuthHeader, "auth-header", "CORROBORATE_REPORT_AUTH_HEADER", "X-Forwarded-User", "--auth proxy: the header the proxy sets to the editor's name (it must strip it from clients)")
	fs.Bool(&c.SecureCookies, "secure-cookies", "CORROBORATE_REPORT_SECURE_COOKIES", false, "mark the session cookie Secure on plain HTTP too: the page is served over TLS by a proxy in front of it")
	c.define(fs, "")
	c.Publisher.define(fs)
	return fs
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c serveConfig
	fs := serveFlags(&c)
	if code, ok := parse("serve", fs, args, stderr); !ok {
		return code
	}
	var problems []string
	if c.DatabaseURL == "" {
		problems = append(problems, "no database: set DATABASE_URL or --database-url")
	}
	if c.PageSize < 1 || c.PageSize > 1000 {
		problems = append(problems, fmt.Sprintf("--page-size %d: give 1 to 1000", c.PageSize))
	}
	if err := oneOf("auth", c.Auth, "none", "accounts", "proxy"); err != nil {
		problems = append(problems, err.Error())
	}
	pub, err := c.Publisher.publisher(false)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if c.Auth == "proxy" && strings.TrimSpace(c.AuthHeader) == "" {
		problems = append(problems, "--auth proxy needs --auth-header, the header your proxy sets to the editor's name")
	}
	if len(problems) > 0 {
		fmt.Fprintln(stderr, "report serve:", strings.Join(problems, "; "))
		return exitInvalid
	}
	st, err := openReadOnly(ctx, c.DatabaseURL)
	if err != nil {
		fmt.Fprintln(stderr, "report serve:", err)
		return exitError
	}
	defer st.Close()
	srv, err := report.NewServer(st, c.PageSize, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		fmt.Fprintln(stderr, "report serve:", err)
		return exitError
	}
	if pub != nil {
		srv.Publish(*pub)
	}
	mode := "read-only"
	if c.Auth != "none" {
		writer, err := c.enableEditing(ctx, srv, st)
		if err != nil {
			fmt.Fprintln(stderr, "report serve:", err)
			return exitError
		}
		defer writer.Close()
		mode = "editors sign in: " + c.Auth
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		fmt.Fprintf(stderr, "report serve: cannot listen on %s: %v\n", c.Addr, err)
		return exitError
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(stdout, "review page (%s) on http://%s/\n", mode, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(stderr, "report serve:", err)
		return exitError
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdown)
	return exitOK
}

// openReadOnly applies the migrations (so that the views exist), then returns a store whose
// every transaction is read-only: the review page cannot change a result even by mistake.
func openReadOnly(ctx context.Context, databaseURL string) (*store.Store, error) {
	owner, err := openStore(ctx, databaseURL)
	if err != nil {
		return nil, err
	}
	owner.Close()
	return store.OpenReadOnly(ctx, store.Config{URL: databaseURL, MaxConns: 8})
}

// enableEditing turns on sign-in and decisions: pages and accounts are read through the
// read-only store; decisions are written through a second, writable pool, which a database role
// granted by `worker grants --for report` can use for nothing but appending them.
func (c serveConfig) enableEditing(ctx context.Context, srv *report.Server, readOnly *store.Store) (*store.Store, error) {
	writer, err := store.Open(ctx, store.Config{URL: c.DatabaseURL, MaxConns: 2})
	if err != nil {
		return nil, err
	}
	cfg := report.AuthConfig{Decisions: writer, SecureCookies: c.SecureCookies}
	if c.Auth == "accounts" {
		cfg.Accounts = readOnly
	} else {
		cfg.ProxyHeader = c.AuthHeader
	}
	if c.NATSURL != "" {
		cfg.Recheck = func(ctx context.Context, runID int64) (string, error) {
			jobID, _, err := c.publish(ctx, writer, runID)
			return jobID, err
		}
	}
	if err := srv.EnableEditing(cfg); err != nil {
		writer.Close()
		return nil, err
	}
	return writer, nil
}
