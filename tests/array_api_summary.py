"""Summarise a pytest-json-report of data-apis/array-api-tests.

Prints a table of passed/failed/skipped/xfailed/error counts per test file,
then the failing tests grouped by test function (the count of failing
parameters and the first line of one failure's message), so that a run's
failures can be read by area.  Exits 1 when any test failed or errored.

    python tests/array_api_summary.py REPORT.json
"""

import collections
import json
import sys

COLUMNS = ("passed", "failed", "skipped", "xfailed", "xpassed", "error")


def summarise(report):
    """(per-file counts, failures by function): counts maps file -> Counter
    of outcomes; failures maps file::function -> list of (nodeid, message)."""
    counts = collections.defaultdict(collections.Counter)
    failures = collections.defaultdict(list)
    for test in report.get("tests", []):
        nodeid = test["nodeid"]
        path = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
        outcome = test["outcome"]
        counts[path][outcome] += 1
        if outcome in ("failed", "error"):
            function = nodeid.split("[", 1)[0]
            failures[function].append((nodeid, failure_message(test)))
    for collector in report.get("collectors", []):
        if collector.get("outcome") == "failed":
            path = collector["nodeid"].rsplit("/", 1)[-1] or "(collection)"
            counts[path]["error"] += 1
            failures[collector["nodeid"]].append(
                (collector["nodeid"], first_line(collector.get("longrepr", "")))
            )
    return counts, failures


def failure_message(test):
    """The first line of the exception of the phase that failed."""
    for phase in ("setup", "call", "teardown"):
        stage = test.get(phase) or {}
        if stage.get("outcome") in ("failed", "error"):
            crash = stage.get("crash") or {}
            return first_line(crash.get("message") or stage.get("longrepr", ""))
    return ""


def first_line(text):
    lines = [line for line in str(text).splitlines() if line.strip()]
    return lines[0][:200] if lines else ""


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        report = json.load(f)
    counts, failures = summarise(report)
    width = max([len("file")] + [len(p) for p in counts])
    print(f"{'file':<{width}} " + " ".join(f"{c:>8}" for c in COLUMNS))
    total = collections.Counter()
    for path in sorted(counts):
        total.update(counts[path])
        print(f"{path:<{width}} " + " ".join(f"{counts[path][c]:>8}" for c in COLUMNS))
    print(f"{'total':<{width}} " + " ".join(f"{total[c]:>8}" for c in COLUMNS))
    if failures:
        print("\nfailures by test function (count, one message):")
        for function in sorted(failures):
            items = failures[function]
            print(f"  {len(items):4d}  {function}")
            print(f"        {items[0][0].split('::')[-1][:120]}: {items[0][1]}")
    return 1 if total["failed"] or total["error"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
