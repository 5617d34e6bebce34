package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/report"
)

type htmlConfig struct {
	filterFlags
	Out       string
	Publisher publisherFlags
}

func htmlFlags(c *htmlConfig) *envflag.Set {
	fs := envflag.New("report html", "Usage: report html --out DIR [flags]\n\n"+
		"Writes a static HTML report of a batch into DIR: index.html lists its statements with their\n"+
		"verdicts; statements/<id>.html shows one statement's claims, verdicts, confidence, sources and\n"+
		"revised text; traces/<run>.html every model call (prompt and reply) and search call of a run.\n"+
		"Plain HTML and CSS, no script; open DIR/index.html in a browser or serve DIR as it is.")
	c.define(fs, "24h")
	fs.String(&c.Out, "out", "CORROBORATE_REPORT_HTML_OUT", "", "folder to write the report into (created when missing; its report files are replaced)")
	c.Publisher.define(fs)
	return fs
}

func runHTML(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c htmlConfig
	fs := htmlFlags(&c)
	if code, ok := parse("html", fs, args, stderr); !ok {
		return code
	}
	filter, err := c.filter(time.Now())
	if c.Out == "" {
		err = errors.Join(err, errors.New("--out DIR: say where to write the report"))
	}
	pub, perr := c.Publisher.publisher(false)
	err = errors.Join(err, perr)
	if err != nil {
		fmt.Fprintln(stderr, "report html:", err)
		return exitInvalid
	}
	st, err := openStore(ctx, c.DatabaseURL)
	if err != nil {
		fmt.Fprintln(stderr, "report html:", err)
		return exitError
	}
	defer st.Close()
	n, err := report.WriteStatic(ctx, st, filter, c.Out, stderr, pub)
	if err != nil {
		fmt.Fprintln(stderr, "report html:", err)
		return exitError
	}
	fmt.Fprintf(stdout, "%d statements written: %s\n", n, filepath.Join(c.Out, "index.html"))
	return exitOK
}
