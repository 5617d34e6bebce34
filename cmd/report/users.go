package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/report"
	"github.com/corroborate/corroborate/internal/store"
)

const usersUsage = `Usage: report users add NAME [--database-url URL]

Creates the review page account of editor NAME (lower-case letters, digits, '.', '_', '-') and
prints its secret once: only its argon2id hash is stored (editor_accounts). Give the secret to
the editor over a safe channel; it cannot be shown again. Run it as the schema's owner (the
report role may read accounts, not create them).

Exit status: 0 created; 1 PostgreSQL error; 2 bad usage or a name already taken.`

func runUsers(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(stderr, usersUsage)
		return exitOK
	}
	if len(args) < 2 || args[0] != "add" {
		fmt.Fprintf(stderr, "report users: say add NAME\n\n%s\n", usersUsage)
		return exitInvalid
	}
	name := args[1]
	var databaseURL string
	fs := envflag.New("report users add", usersUsage)
	fs.String(&databaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL")
	if code, ok := parse("users add", fs, args[2:], stderr); !ok {
		return code
	}
	if !report.EditorName.MatchString(name) {
		fmt.Fprintf(stderr, "report users add: %q is not an account name: use lower-case letters, digits, '.', '_' and '-', up to 63, starting with a letter or digit\n", name)
		return exitInvalid
	}
	if databaseURL == "" {
		fmt.Fprintln(stderr, "report users add: no database: set DATABASE_URL or --database-url")
		return exitInvalid
	}
	st, err := openStore(ctx, databaseURL)
	if err != nil {
		fmt.Fprintln(stderr, "report users add:", err)
		return exitError
	}
	defer st.Close()
	secret := report.NewSecret()
	if err := st.AddEditor(ctx, name, report.HashSecret(secret)); err != nil {
		fmt.Fprintln(stderr, "report users add:", err)
		if errors.Is(err, store.ErrEditorExists) {
			return exitInvalid
		}
		return exitError
	}
	fmt.Fprintf(stderr, "editor %s created; the secret below is shown this once (only its hash is stored):\n", name)
	fmt.Fprintln(stdout, secret)
	return exitOK
}
