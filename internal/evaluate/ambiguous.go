package evaluate

// ambiguousStatement is a statement written to be ambiguous or underspecified, with what makes
// it so (for the reader of the report; the measurement does not use it).
type ambiguousStatement struct {
	Text, Why string
}

// ambiguousStatements are spec 004's "10 deliberately ambiguous statements": each has a claim
// with two or more readings that evidence would judge differently, so a plan that treats it as
// one precise claim is flagged. Each is checkable (none is opinion), so a plan must not drop it.
var ambiguousStatements = []ambiguousStatement{
	{"Georgia's capital is Atlanta.", "the US state (Atlanta) or the country (Tbilisi)"},
	{"The Giants won the championship in 2010.", "the San Francisco Giants (World Series 2010) or the New York Giants (no Super Bowl that season)"},
	{"Cambridge is home to one of the oldest universities in the world.", "Cambridge, England (1209) or Cambridge, Massachusetts (Harvard, 1636)"},
	{"Mercury was known to people in ancient times.", "the planet or the chemical element; both readings, different evidence"},
	{"The Amazon is the largest in the world.", "the river (by discharge, or length?), the rainforest, or the company; and largest by what measure"},
	{"Jordan won six championships.", "Michael Jordan (six NBA titles) or another Jordan; which championships"},
	{"The president signed the climate bill last year.", "which president, which country, which bill, and which year 'last year' is"},
	{"Unemployment fell by half after the reform.", "which country, which reform, over what period, and half of the rate or of the count"},
	{"Paris has more than two million inhabitants.", "the city proper (about 2.1 million) or the metropolitan area (over 12 million); or Paris, Texas"},
	{"The tallest building was completed in 2010.", "tallest in the world (Burj Khalifa, 2010), in a country, or in a city"},
	{"Java was first released in 1995.", "the programming language (1995) or something else named Java; release or announcement"},
	{"The company doubled its revenue after the merger.", "which company and merger, and over what period the revenue doubled"},
}
