"""Reads `evaluate verdicts --out` files against a hand adjudication of which statements their
corpus decides, for issue 23's target "unverified where the corpus holds the evidence".

    python3 scripts/relay_decided.py ADJUDICATION.tsv results.jsonl [more.jsonl ...]

ADJUDICATION.tsv has one line per statement, "id<TAB>decision": what an annotator who saw the
statement and its gold evidence alone (FEVEROUS-S's corpus is those sentences), and neither the
gold label nor any verdict, found the evidence does: "supports" (it states every fact),
"refutes" (it contradicts one), or "neither" (a fact it neither states nor contradicts). A
statement the evidence decides and a method left unverified is the method's miss; one the
evidence does not decide is unverified rightly, whatever its label (docs/evaluation.md, session
38). It prints, for each file: the share unverified of the statements the evidence decides (and
of each gold label), the share of the others left unverified, and how often the annotator's
decision is the data set's label, and macro-F1 on the statements the evidence decides against
either.
"""
import json
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    decisions = {}
    for n, line in enumerate(open(sys.argv[1]), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 2 or fields[1] not in ("supports", "refutes", "neither"):
            sys.exit(f"{sys.argv[1]}:{n}: want id<TAB>supports|refutes|neither, got {line.strip()!r}")
        decisions[fields[0]] = fields[1]
    for path in sys.argv[2:]:
        items = [json.loads(line) for line in open(path)]
        missing = [d["id"] for d in items if d["id"] not in decisions]
        if missing:
            sys.exit(f"{path}: {len(missing)} statements have no decision in {sys.argv[1]}, first {missing[0]}")
        decided = [d for d in items if decisions[d["id"]] != "neither"]
        undecided = [d for d in items if decisions[d["id"]] == "neither"]

        def unverified(ds):
            k = sum(d["predicted"] == "unverified" for d in ds)
            return f"{k}/{len(ds)} = {k / len(ds):.1%}" if ds else "-"

        by_gold = ", ".join(f"of the {g} {unverified([d for d in decided if d['gold'] == g])}" for g in ("supported", "refuted"))
        gold_word = {"supported": "supports", "refuted": "refutes"}
        agree = sum(decisions[d["id"]] == gold_word.get(d["gold"]) for d in decided)
        print(f"{path}: {len(items)} statements")
        print(f"  unverified where the evidence decides the statement: {unverified(decided)} ({by_gold})")
        print(f"  unverified where it does not: {unverified(undecided)}")
        print(f"  the annotator's decision is the data set's label on {agree} of the {len(decided)} it decides")
        as_decided = [dict(d, gold={"supports": "supported", "refutes": "refuted"}[decisions[d["id"]]]) for d in decided]
        print(f"  where the evidence decides: macro-F1 {macro_f1(decided):.3f} against the data set's labels, "
              f"{macro_f1(as_decided):.3f} against the annotator's decisions")


def macro_f1(items):
    """The mean F1 of supported and refuted, as `evaluate verdicts` scores FEVEROUS-S."""
    f1s = []
    for label in ("supported", "refuted"):
        tp = sum(d["predicted"] == label and d["gold"] == label for d in items)
        predicted = sum(d["predicted"] == label for d in items)
        gold = sum(d["gold"] == label for d in items)
        p, r = (tp / predicted if predicted else 0), (tp / gold if gold else 0)
        f1s.append(2 * p * r / (p + r) if p + r else 0)
    return sum(f1s) / 2


if __name__ == "__main__":
    main()
