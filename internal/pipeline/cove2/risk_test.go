package cove2

import (
	"slices"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
)

func TestClaimSignals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want []string
	}{
		{"Therefore the argument holds.", nil},
		{"Cats are usually friendlier than people think.", nil},
		{"It rains a lot, so it is green.", nil},
		{"The tower is 330 metres tall.", []string{SignalNumber}},
		{"It was completed in March 1889.", []string{SignalNumber, SignalDate}},
		{"Python 3.12 removed distutils.", []string{SignalNumber, SignalVersion}},
		{"Call json.Marshal(v) to encode it.", []string{SignalAPISignature}},
		{"In Paris, it draws many visitors.", nil},
		{"Being in Paris, it draws many visitors.", nil},
		{"As Smith et al. showed, it holds.", []string{SignalNamedReference}},
		{"The tower was designed by Gustave Eiffel.", []string{SignalNamedReference}},
		{"The Eiffel Tower is in Paris.", []string{SignalNamedReference}},
		{"See https://example.com for the details.", []string{SignalURL}},
		{"Install github.com/nats-io/nats.go to connect.", []string{SignalURL, SignalPackage}},
		{"This dosage of ibuprofen is safe during pregnancy.", []string{SignalRegulated}},
		{"Under the lease, the landlord is liable.", []string{SignalRegulated}},
		{"The latest release is the fastest one.", []string{SignalFreshness}},
	}
	for _, c := range cases {
		if got := ClaimSignals(c.text); !slices.Equal(got, c.want) {
			t.Errorf("ClaimSignals(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// The model's tier is advice the code's signals can only raise.
func TestClaimTier(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		model, text, want string
		raised            bool
	}{
		{pipeline.TierDeep, "Therefore the argument holds.", pipeline.TierDeep, false},
		{pipeline.TierShallow, "Therefore the argument holds.", pipeline.TierShallow, false},
		{pipeline.TierShallow, "The bridge opened in 1932.", pipeline.TierDeep, true},
		{pipeline.TierShallow, "Ibuprofen is a safe medication for children.", pipeline.TierDeep, true},
		{"", "Gustave Eiffel designed it.", pipeline.TierDeep, true},
	} {
		tier, raisedBy := claimTier(c.model, c.text, nil)
		if tier != c.want || (raisedBy != nil) != c.raised {
			t.Errorf("claimTier(%q, %q) = %s %v", c.model, c.text, tier, raisedBy)
		}
	}
}

// Issue 22, case 6: a shallow logic claim that names a person was forced deep by "signals
// (named_reference)", against spec 000's "use shallow for logic/causal relationships". A
// logic claim stays shallow when the names it holds are named by the plan's other claims (the
// facts that are verified); a name only the logic claim holds, any other signal, or a claim
// with no logic in it is still raised.
func TestClaimTierLogicNamingAPerson(t *testing.T) {
	t.Parallel()
	facts := []string{"Marie Curie discovered polonium.", "Polonium is a radioactive element."}
	for _, c := range []struct {
		model, text string
		want        string
		raisedBy    []string
	}{
		{pipeline.TierShallow, "Therefore Marie Curie discovered a radioactive element.", pipeline.TierShallow, nil},
		{pipeline.TierShallow, "Marie Curie discovered a radioactive element because polonium is radioactive.", pipeline.TierShallow, nil},
		{pipeline.TierShallow, "Therefore Pierre Curie discovered a radioactive element.", pipeline.TierDeep, []string{SignalNamedReference}},
		{pipeline.TierShallow, "Marie Curie discovered a radioactive element.", pipeline.TierDeep, []string{SignalNamedReference}},
		{pipeline.TierShallow, "Therefore Marie Curie discovered a radioactive element in 1898.", pipeline.TierDeep, []string{SignalNumber, SignalDate}},
		{"", "Therefore Marie Curie discovered a radioactive element.", pipeline.TierDeep, []string{SignalNamedReference}},
	} {
		tier, raisedBy := claimTier(c.model, c.text, facts)
		if tier != c.want || !slices.Equal(raisedBy, c.raisedBy) {
			t.Errorf("claimTier(%q, %q) = %s %v, want %s %v", c.model, c.text, tier, raisedBy, c.want, c.raisedBy)
		}
	}
}

func TestRankByRisk(t *testing.T) {
	t.Parallel()
	texts := []string{
		"Therefore it works.",                     // 0: no signal
		"The dose is 400 mg every 6 hours.",       // 9: regulated + precise
		"Gustave Eiffel designed the tower.",      // 2: reference
		"The tower opened in 1889.",               // 3: precise
		"The current price of gold is 2,000 USD.", // precise + reference + regulated? no: precise + reference + freshness
	}
	got := rankByRisk(texts)
	if !slices.Equal(got, []int{1, 4, 3, 2, 0}) {
		t.Errorf("rankByRisk: %v (risks %d %d %d %d %d)", got,
			ClaimRisk(texts[0]), ClaimRisk(texts[1]), ClaimRisk(texts[2]), ClaimRisk(texts[3]), ClaimRisk(texts[4]))
	}
}
