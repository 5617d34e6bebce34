package evidence

import (
	"testing"
)

// sameClaimTestSet is the written test set of SameClaimThreshold: each claim with rewordings of
// it (which must match) and different claims about the same subject (which must not). A
// different number, year or negation must never match.
var sameClaimTestSet = []struct {
	claim     string
	rewording []string
	different []string
	// missed are rewordings by another word or with a word dropped: not matched, on purpose (see
	// SameClaimThreshold).
	missed []string
}{
	{
		claim: "The Eiffel Tower was completed in 1889.",
		rewording: []string{
			"the eiffel tower was completed in 1889",
			"The  Eiffel Tower was completed in 1889!",
			"In 1889, the Eiffel Tower was completed.",
			"Eiffel Tower was completed in 1889",
			"The Eiffel Tower had been completed in 1889.",
			"Ｔｈｅ Eiffel Tower was completed in 1889.",
		},
		different: []string{
			"The Eiffel Tower was completed in 1887.",
			"The Eiffel Tower was not completed in 1889.",
			"The Eiffel Tower is 330 metres tall.",
			"The Statue of Liberty was completed in 1886.",
			"The Eiffel Tower was designed by Gustave Eiffel's company.",
		},
		missed: []string{"The Eiffel Tower was finished in 1889."},
	},
	{
		claim: "Unemployment in Spain fell to 11.2 percent in 2024.",
		rewording: []string{
			"In 2024 unemployment in Spain fell to 11.2 percent.",
			"Spain's unemployment fell to 11.2 percent in 2024.",
			"Unemployment in Spain fell to 11.2 per cent in 2024.",
		},
		different: []string{
			"Unemployment in Spain fell to 11.2 percent in 2023.",
			"Unemployment in Spain fell to 12.2 percent in 2024.",
			"Unemployment in Spain rose in 2024.",
			"Unemployment in Portugal fell to 6.4 percent in 2024.",
			"Youth unemployment in Spain was above 25 percent in 2024.",
		},
		missed: []string{"Unemployment in Spain dropped to 11.2 percent in 2024."},
	},
	{
		claim: "Marie Curie won two Nobel Prizes.",
		rewording: []string{
			"Marie Curie won 2 Nobel Prizes.",
			"MARIE CURIE WON TWO NOBEL PRIZES",
		},
		different: []string{
			"Marie Curie won three Nobel Prizes.",
			"Marie Curie never won a Nobel Prize.",
			"Pierre Curie won one Nobel Prize.",
			"Marie Curie was born in Warsaw.",
			"Pierre Curie won two Nobel Prizes.",
		},
		missed: []string{"Marie Curie was awarded two Nobel Prizes."},
	},
	{
		// The tens read as digits too (the claim rules had their own list without them).
		claim: "The Empire State Building took thirty months to plan.",
		rewording: []string{
			"The Empire State Building took 30 months to plan.",
		},
		different: []string{
			"The Empire State Building took thirteen months to plan.",
			"The Empire State Building took 3 months to plan.",
		},
	},
	{
		claim: "The Amazon river is longer than the Nile.",
		rewording: []string{
			"The Amazon River is longer than the Nile river.",
		},
		missed: []string{"The Amazon is longer than the Nile."},
		different: []string{
			"The Amazon river is not longer than the Nile.",
			"The Nile is the longest river in Africa.",
			"The Amazon river carries more water than any other river.",
			"The Mississippi river is longer than the Nile.",
			// The same words and names in swapped roles: another claim.
			"The Nile river is longer than the Amazon.",
		},
	},
	{
		claim: "The Brooklyn Bridge opened in 1883.",
		rewording: []string{
			"In 1883 the Brooklyn Bridge was opened.",
		},
		different: []string{
			"The Williamsburg Bridge opened in 1883.",
			"The Brooklyn Bridge closed in 1883.",
			"The Brooklyn Bridge opened to traffic in 1883.",
		},
	},
	{
		claim: "Vienna is larger than Prague.",
		rewording: []string{
			"Vienna is larger than Prague!",
		},
		different: []string{
			"Prague is larger than Vienna.",
		},
	},
}

// TestSameClaimOnTheTestSet checks SameClaim on the written test set and prints every score, the
// figures that SameClaimThreshold was chosen on.
func TestSameClaimOnTheTestSet(t *testing.T) {
	for _, tc := range sameClaimTestSet {
		fp := ClaimFingerprintOf(tc.claim)
		for _, r := range tc.rewording {
			t.Logf("rewording %.2f %q", Resemblance(fp, ClaimFingerprintOf(r)), r)
			if !SameClaim(tc.claim, r) {
				t.Errorf("SameClaim(%q, %q) = false, want true: a rewording", tc.claim, r)
			}
		}
		for _, r := range tc.missed {
			t.Logf("missed %.2f %q", Resemblance(fp, ClaimFingerprintOf(r)), r)
			if SameClaim(tc.claim, r) {
				t.Errorf("SameClaim(%q, %q) = true: a rewording by another word is matched", tc.claim, r)
			}
		}
		for _, d := range tc.different {
			t.Logf("different %.2f %q", Resemblance(fp, ClaimFingerprintOf(d)), d)
			if SameClaim(tc.claim, d) {
				t.Errorf("SameClaim(%q, %q) = true, want false: another claim", tc.claim, d)
			}
		}
	}
}

func TestReuseKeyOfNormalises(t *testing.T) {
	want := ReuseKeyOf("The Eiffel Tower was completed in 1889.")
	for _, s := range []string{"the eiffel tower  was completed in 1889", " THE EIFFEL TOWER WAS COMPLETED IN 1889 ", "The “Eiffel” Tower was completed in 1889…", "Ｔｈｅ Eiffel Tower was completed in 1889"} {
		if got := ReuseKeyOf(s); got != want {
			t.Errorf("ReuseKeyOf(%q) = %q, want %q", s, got, want)
		}
	}
	if ReuseKeyOf("The Eiffel Tower was completed in 1887.") == want {
		t.Error("another year has the same key")
	}
	// One number, however it is written: a compound number word is its digits.
	want = ReuseKeyOf("The band released 21 albums.")
	for _, s := range []string{"The band released twenty-one albums.", "The band released twenty one albums."} {
		if got := ReuseKeyOf(s); got != want {
			t.Errorf("ReuseKeyOf(%q) = %q, want %q", s, got, want)
		}
	}
	if ReuseKeyOf("The band released twenty albums.") == want {
		t.Error("twenty has the key of 21")
	}
}

func TestTimeSensitive(t *testing.T) {
	if !TimeSensitive(true, "The Eiffel Tower was completed in 1889") {
		t.Error("a claim the plan marked as needing a temporal scope is not time-sensitive")
	}
	if !TimeSensitive(false, "Joe Biden is the current president", "") {
		t.Error("a claim with a freshness word is not time-sensitive")
	}
	if TimeSensitive(false, "The Eiffel Tower was completed in 1889", "Eiffel Tower completion 1889") {
		t.Error("a dated historical claim is time-sensitive")
	}
}

// A claim and its rewording wait for one verification: they share a lease key; another year
// does not.
func TestLeaseKeyOfRewordings(t *testing.T) {
	a := LeaseKeyOf("The Ashby Observatory was opened in 1973.")
	if b := LeaseKeyOf("In 1973 the Ashby Observatory was opened."); a != b {
		t.Errorf("a rewording has lease key %q, the claim %q", b, a)
	}
	if b := LeaseKeyOf("The Ashby Observatory was opened in 1974."); a == b {
		t.Errorf("another year shares the lease key %q", a)
	}
}

// RelativeTime finds the times a text states relative to when it was written, and not dates,
// durations or ages.
func TestRelativeTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"312 species of harbour beetles were described 15 years ago", true},
		{"The bridge opened a year ago", true},
		{"The team won the title last season", true},
		{"She is currently the mayor", true},
		{"The record has stood to date", true},
		{"The Eiffel Tower was completed in 1889", false},
		{"The Eiffel Tower was the tallest structure for 41 years", false},
		{"He retired at 65 years of age", false},
		{"The lasting peace of the last century's treaties", true},
		{"The album was released in the same year", false},
	} {
		if got := RelativeTime.MatchString(tc.text); got != tc.want {
			t.Errorf("RelativeTime(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
