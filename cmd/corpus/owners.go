package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/store"
)

const ownersUsage = `Usage: corpus owners add [flags] DOMAIN ORGANISATION
       corpus owners list [flags]

The source_owners table says which organisation owns a registrable domain; independence counts
one organisation as one publisher (apnews.com and ap.org are one source). It ships with a seed
list (docs/independence.md); add the newsroom's own knowledge here or with SQL. Workers read the
table again within a minute.
`

func runOwners(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, ownersUsage)
		if len(args) == 0 {
			return exitInvalid
		}
		return exitOK
	}
	switch args[0] {
	case "add":
		return runOwnersAdd(ctx, args[1:], stdout, stderr)
	case "list":
		return runOwnersList(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "corpus owners: unknown command %q\n\n%s", args[0], ownersUsage)
	return exitInvalid
}

func runOwnersAdd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var databaseURL, source string
	fs := envflag.New("corpus owners add", "Usage: corpus owners add [flags] DOMAIN ORGANISATION\n\n"+
		"Records that ORGANISATION (the rest of the arguments) owns DOMAIN, a registrable domain such as\n"+
		"apnews.com (a URL is read for its host). A domain already listed gets the new organisation.")
	fs.String(&databaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL")
	fs.String(&source, "source", "CORROBORATE_OWNER_SOURCE", "", "where this is known from, for the next editor (an imprint, an annual report)")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() < 2 {
		fmt.Fprintln(stderr, "corpus owners add: give a domain and an organisation: corpus owners add apnews.com \"Associated Press\"")
		return exitInvalid
	}
	domain, organisation := fs.Arg(0), strings.Join(fs.Args()[1:], " ")
	// Checked before connecting: a typo is exit 2 whether or not the database is up.
	if _, err := store.OwnerDomain(domain); err != nil {
		fmt.Fprintln(stderr, "corpus owners add:", err)
		return exitInvalid
	}
	if _, err := store.OwnerOrganisation(organisation); err != nil {
		fmt.Fprintln(stderr, "corpus owners add:", err)
		return exitInvalid
	}
	pool, err := open(ctx, databaseURL, "")
	if err != nil {
		fmt.Fprintln(stderr, "corpus owners add:", err)
		return exitError
	}
	defer pool.Close()
	o, err := store.New(pool).AddSourceOwner(ctx, domain, organisation, source)
	if err != nil {
		fmt.Fprintln(stderr, "corpus owners add:", err)
		return exitError
	}
	fmt.Fprintf(stdout, "%s is owned by %s\n", o.Domain, o.Organisation)
	return exitOK
}

func runOwnersList(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var databaseURL string
	var asJSON bool
	fs := envflag.New("corpus owners list", "Usage: corpus owners list [flags]\n\nLists source_owners by organisation.")
	fs.String(&databaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL")
	fs.Bool(&asJSON, "json", "CORROBORATE_OWNERS_JSON", false, "one JSON object per line (domain, organisation, source, added_at)")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "corpus owners list: unexpected arguments %q\n", fs.Args())
		return exitInvalid
	}
	pool, err := open(ctx, databaseURL, "")
	if err != nil {
		fmt.Fprintln(stderr, "corpus owners list:", err)
		return exitError
	}
	defer pool.Close()
	owners, err := store.New(pool).SourceOwners(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "corpus owners list:", err)
		return exitError
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		for _, o := range owners {
			_ = enc.Encode(o)
		}
		return exitOK
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ORGANISATION\tDOMAIN\tADDED\tSOURCE")
	for _, o := range owners {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", o.Organisation, o.Domain, o.AddedAt.Format(time.DateOnly), o.Source)
	}
	_ = w.Flush()
	return exitOK
}
