// Command devservices starts a throwaway PostgreSQL cluster and an in-process nats-server with
// JetStream for the test script on a machine where they do not run, writes their URLs as shell
// exports to the file given by --env-file, and stops both on SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/corroborate/corroborate/internal/devenv"
)

func main() {
	dir := flag.String("dir", "", "folder for the services' files (required)")
	envFile := flag.String("env-file", "", "file to write DATABASE_URL and NATS_URL exports to (required)")
	postgres := flag.Bool("postgres", true, "start PostgreSQL")
	nats := flag.Bool("nats", true, "start NATS")
	flag.Parse()
	if *dir == "" || *envFile == "" {
		log.Fatal("devservices: --dir and --env-file are required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var exports string
	if *postgres {
		pg, err := devenv.StartPostgres(ctx, filepath.Join(*dir, "postgres"))
		if err != nil {
			log.Fatalf("devservices: %v", err)
		}
		defer func() {
			if err := pg.Stop(); err != nil {
				log.Printf("devservices: %v", err)
			}
		}()
		exports += fmt.Sprintf("export DATABASE_URL=%q\n", pg.URL)
	}
	if *nats {
		ns, err := devenv.StartNATS(filepath.Join(*dir, "nats"), 0)
		if err != nil {
			log.Fatalf("devservices: %v", err)
		}
		defer ns.Stop()
		exports += fmt.Sprintf("export NATS_URL=%q\n", ns.URL)
	}
	tmp := *envFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(exports), 0o644); err != nil {
		log.Fatalf("devservices: %v", err)
	}
	if err := os.Rename(tmp, *envFile); err != nil {
		log.Fatalf("devservices: %v", err)
	}
	<-ctx.Done()
}
