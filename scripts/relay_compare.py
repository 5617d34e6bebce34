"""Compares two `evaluate verdicts --out` files of the same claims: the figures of each, the
statements whose verdict differs, and, with --misses, every statement of the second file whose
verdict is not the gold label with the claims that left it so.

    python3 scripts/relay_compare.py before.jsonl after.jsonl [--misses]

Used to read an A/B run or a replay claim by claim (docs/evaluation.md, "A real chat model").
"""
import json
import sys


def load(path):
    return {d["id"]: d for d in map(json.loads, open(path))}


def figures(items):
    n = len(items)
    f1s = []
    for label in ("supported", "refuted"):
        tp = sum(d["predicted"] == label and d["gold"] == label for d in items.values())
        predicted = sum(d["predicted"] == label for d in items.values())
        gold = sum(d["gold"] == label for d in items.values())
        p, r = (tp / predicted if predicted else 0), (tp / gold if gold else 0)
        f1s.append(2 * p * r / (p + r) if p + r else 0)
    correct = sum(d["predicted"] == d["gold"] for d in items.values())
    unverified = sum(d["predicted"] == "unverified" for d in items.values())
    tokens = sum(d["cost"]["tokens"] for d in items.values()) / n
    return (f"{n} claims: accuracy {correct / n:.3f}, macro-F1 {sum(f1s) / 2:.3f}, "
            f"unverified {unverified}/{n} = {unverified / n:.1%}, {tokens:,.0f} tokens a claim")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    before, after = load(argv[0]), load(argv[1])
    print("before:", figures(before))
    print("after: ", figures(after))
    for k in sorted(before.keys() & after.keys(), key=lambda x: (len(x), x)):
        if before[k]["predicted"] != after[k]["predicted"]:
            print(f"  {k}: gold {after[k]['gold']}, {before[k]['predicted']} -> {after[k]['predicted']}")
    if "--misses" in argv:
        for d in after.values():
            if d["predicted"] == d["gold"]:
                continue
            marker = " (closed-world)" if d.get("closed_world") else ""
            print(f"== {d['id']}: gold {d['gold']}, predicted {d['predicted']}{marker}")
            for c in d["claims"]:
                if c["verdict"] != "supported":
                    print(f"    {c['verdict']} ({c.get('model_verdict', '')}, {c.get('confidence', '')}) "
                          f"{c['text'][:120]!r}: {c.get('reason', '')[:200]}")


if __name__ == "__main__":
    main(sys.argv[1:])
