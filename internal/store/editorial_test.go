package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
)

// An editor's decisions are appended beside the machine's verdict, never over it; the latest
// one says which verdict stands, in editorial_verdicts, claim_results and statement_results; a
// recheck leaves the machine's verdict standing; a newer run starts with no decision.
func TestEditorDecisionsStandBesideTheMachineVerdict(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	rec := sampleRecord(newJobID(t))
	rec.Statement.SourceURL, rec.Statement.SourceAuthor = "https://news.example/a", "A. Speaker"
	published := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	rec.Statement.PublishedAt = &published
	saved, err := s.SaveRun(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	standing := func(pos int) store.EditorialVerdict {
		t.Helper()
		rows, err := s.EditorialVerdicts(ctx, saved.RunID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.Position == pos {
				return r
			}
		}
		t.Fatalf("claim %d not in editorial_verdicts: %+v", pos, rows)
		return store.EditorialVerdict{}
	}
	if ev := standing(1); ev.StandingVerdict != pipeline.VerdictRefuted || ev.StandingSource != store.SourceMachine || ev.Decision != "" {
		t.Errorf("before any decision: %+v", ev)
	}

	// Approve claim 1: the machine's verdict stands, now an editor's.
	if _, err := s.Decide(ctx, store.Decision{Editor: "ana", RunID: saved.RunID, Position: 1, Kind: store.DecisionApprove}); err != nil {
		t.Fatal(err)
	}
	if ev := standing(1); ev.StandingVerdict != pipeline.VerdictRefuted || ev.StandingSource != store.SourceEditor || ev.DecidedBy != "ana" {
		t.Errorf("after approval: %+v", ev)
	}
	// Override claim 2 (unverified) as supported, with a reason.
	if _, err := s.Decide(ctx, store.Decision{Editor: "ben", RunID: saved.RunID, Position: 2, Kind: store.DecisionOverride,
		Verdict: pipeline.VerdictSupported, Reason: "the birth certificate is public"}); err != nil {
		t.Fatal(err)
	}
	ev := standing(2)
	if ev.MachineVerdict != pipeline.VerdictUnverified || ev.StandingVerdict != pipeline.VerdictSupported || ev.StandingSource != store.SourceEditor ||
		ev.DecisionReason != "the birth certificate is public" {
		t.Errorf("after override: %+v", ev)
	}
	var machine string
	if err := s.Pool().QueryRow(ctx, `SELECT verdict FROM claims WHERE run_id = $1 AND position = 2`, saved.RunID).Scan(&machine); err != nil || machine != pipeline.VerdictUnverified {
		t.Errorf("the machine's verdict was changed: %q, %v", machine, err)
	}
	var sv, ss, surl string
	if err := s.Pool().QueryRow(ctx, `SELECT standing_verdict, standing_source, source_url FROM statement_results WHERE run_id = $1`, saved.RunID).Scan(&sv, &ss, &surl); err != nil {
		t.Fatal(err)
	}
	if sv != pipeline.VerdictRefuted || ss != store.SourceEditor || surl != "https://news.example/a" {
		t.Errorf("statement_results: standing %q from %q, source_url %q", sv, ss, surl)
	}
	var cv, cs string
	if err := s.Pool().QueryRow(ctx, `SELECT standing_verdict, standing_source FROM claim_results WHERE run_id = $1 AND position = 2`, saved.RunID).Scan(&cv, &cs); err != nil || cv != "supported" || cs != "editor" {
		t.Errorf("claim_results: %q %q %v", cv, cs, err)
	}

	// A recheck: the machine's verdict stands again until the new run.
	if _, err := s.Decide(ctx, store.Decision{Editor: "ben", RunID: saved.RunID, Position: 2, Kind: store.DecisionRecheck, RecheckJobID: "recheck:x"}); err != nil {
		t.Fatal(err)
	}
	if ev := standing(2); ev.StandingVerdict != pipeline.VerdictUnverified || ev.StandingSource != store.SourceMachine || ev.RecheckJobID != "recheck:x" {
		t.Errorf("after recheck: %+v", ev)
	}

	// Append-only, even for the schema's owner.
	for _, sql := range []string{`UPDATE editor_decisions SET verdict = 'refuted'`, `DELETE FROM editor_decisions`} {
		if _, err := s.Pool().Exec(ctx, sql); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v, want the append-only refusal", sql, err)
		}
	}
	var n int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM editor_decisions WHERE run_id = $1`, saved.RunID).Scan(&n); err != nil || n != 3 {
		t.Errorf("%d decisions stored, want 3 (%v)", n, err)
	}

	// Bad decisions are refused with what to do; a claim of an older run is refused.
	for _, d := range []store.Decision{
		{Editor: "ben", RunID: saved.RunID, Position: 1, Kind: store.DecisionOverride, Verdict: "supported"},
		{Editor: "ben", RunID: saved.RunID, Position: 1, Kind: store.DecisionOverride, Verdict: "maybe", Reason: "x"},
		{Editor: "", RunID: saved.RunID, Position: 1, Kind: store.DecisionApprove},
		{Editor: "ben", RunID: saved.RunID, Position: 1, Kind: "publish"},
	} {
		if _, err := s.Decide(ctx, d); err == nil {
			t.Errorf("%+v was stored", d)
		}
	}
	if _, err := s.Decide(ctx, store.Decision{Editor: "ben", RunID: saved.RunID, Position: 9, Kind: store.DecisionApprove}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a claim that does not exist: %v", err)
	}
	newer := sampleRecord(newJobID(t))
	newer.Statement = rec.Statement
	newer.StartedAt, newer.FinishedAt = time.Now(), time.Now().Add(time.Second)
	if _, err := s.SaveRun(ctx, newer); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decide(ctx, store.Decision{Editor: "ben", RunID: saved.RunID, Position: 1, Kind: store.DecisionApprove}); !errors.Is(err, store.ErrNotLatestRun) {
		t.Errorf("a claim of an older run: %v", err)
	}
}
