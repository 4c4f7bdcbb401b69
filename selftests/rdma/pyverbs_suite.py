#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Counts and compares the results of rdma-core's test suite (run_tests.py -v) on scenic_0 and
on rxe0 (docs/verbs-completeness.md 8.2). Runs in the guest of the rdma-suite boot
(pyverbs_suite.sh) and on the host (run-vm-tests: the TSVs and suite-skips.txt).

  pyverbs_suite.py lane --doc RDMA_MD SCENIC_LOG RXE_LOG
      parses both logs, prints the counts, the comparisons and TAP, one SUITE-TSV line per
      test (the host keeps them as build/vm/suite-<dev>.tsv); exit 1 when the lane fails
  pyverbs_suite.py skips SCENIC_TSV RXE_TSV
      the per-test list (test, scenic_0, rxe0, feature, reason) of selftests/rdma/suite-skips.txt
"""

import argparse
import fnmatch
import re
import sys

# "test_x (tests.test_mr.MRTest.test_x)", also "setUpClass (tests.test_mr.MRTest)"; a test with
# a docstring gets it on the next line before " ... RESULT"
START_RE = re.compile(r"^(\w+) \(([\w.]+)\)")
# the result ends the start line, or a line of its own when the test printed something first
RESULT_RE = re.compile(r"(?:^|\.\.\. )(ok|ERROR|FAIL|skipped (.*)|expected failure|"
                       r"unexpected success)$")
RAN_RE = re.compile(r"^Ran (\d+) tests? in ")
CLOSE_RE = re.compile(r"^(OK|FAILED)(?: \((.*)\))?$")
RESULT_NAME = {"ok": "ok", "ERROR": "error", "FAIL": "failure", "expected failure": "ok",
               "unexpected success": "failure"}

# The feature each test file needs (docs/verbs-completeness.md 8.3), for suite-skips.txt.
FEATURE = {
    "test_device": "query device/port/GID; device memory (alloc_dm)",
    "test_pd": "protection domains", "test_shared_pd": "ibv_import_device / import_pd",
    "test_addr": "address handles", "test_qp": "QP types RC, UC, UD, raw packet",
    "test_qpex": "ibv_wr_* (extended QP)", "test_cq": "CQ, resize_cq",
    "test_cqex": "ibv_create_cq_ex", "test_cq_events": "completion events",
    "test_atomic": "atomics (RC, XRC)", "test_mr": "MR, rereg_mr, MW, DM, dma-buf",
    "test_rdmacm": "rdma_cm (RC, UDP, multicast)", "test_odp": "on-demand paging",
    "test_parent_domain": "parent domain, custom allocators",
    "test_relaxed_ordering": "relaxed ordering", "test_tag_matching": "tag matching",
    "test_flow": "flow steering", "test_rss_traffic": "RSS", "test_fork": "fork",
    "test_cuda_dmabuf": "CUDA dma-buf",
}


class Run:
    def __init__(self, dev):
        self.dev = dev
        self.tests = []  # (test id, result, reason)
        self.ran = None  # "Ran N tests"
        self.closing = None  # {"failures": F, "errors": E, "skipped": S}, None: no closing line

    def count(self, result):
        return sum(1 for _, r, _ in self.tests if r == result)

    def results(self):
        return {t: r for t, r, _ in self.tests}


def parse_log(dev, text):
    run = Run(dev)
    cur = None
    for line in text.splitlines():
        m = START_RE.match(line)
        if m:
            name, where = m.groups()
            cur = where if where.endswith("." + name) else f"{where}.{name}"
        m = RESULT_RE.search(line)
        if m and cur:
            word = "skipped" if m.group(1).startswith("skipped") else m.group(1)
            reason = m.group(2) or ""
            if reason.startswith(("'", '"')) and reason.endswith(reason[0]):
                reason = reason[1:-1]
            run.tests.append((cur, RESULT_NAME.get(word, word), reason.replace("\t", " ")))
            cur = None
            continue
        m = RAN_RE.match(line)
        if m:
            run.ran = int(m.group(1))
        m = CLOSE_RE.match(line)
        if m and run.ran is not None:
            run.closing = {"failures": 0, "errors": 0, "skipped": 0}
            for part in (m.group(2) or "").split(","):
                k, _, v = part.strip().partition("=")
                if k in ("failures", "errors", "skipped", "unexpected successes"):
                    run.closing[k] = int(v)
    return run


def check_totals(run):
    """[] when the per-test lines agree with unittest's closing lines, else the differences."""
    if run.ran is None or run.closing is None:
        return ["no closing 'Ran N tests' / 'OK'|'FAILED' line: the run did not end"]
    bad = []
    # setUpClass errors are reported as tests but not counted in "Ran N"
    n = sum(1 for t, _, _ in run.tests if not t.rsplit(".", 1)[-1].startswith("setUp"))
    if n != run.ran:
        bad.append(f"{n} per-test lines, unittest ran {run.ran}")
    for k, mine in (("errors", run.count("error")), ("failures", run.count("failure")),
                    ("skipped", run.count("skipped"))):
        if mine != run.closing.get(k, 0):
            bad.append(f"{mine} {k} parsed, unittest says {run.closing.get(k, 0)}")
    return bad


def doc_skips(path):
    """The skip table of docs/rdma.md ("rdma-core's test suite"): [(patterns, feature, why)].
    Rows whose first cell holds `glob` patterns of test ids (module.Class.test)."""
    rows = []
    table = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("#"):
            table = "skips on scenic_0" in line.lower()
            continue
        if not table or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        pats = re.findall(r"`([^`]+)`", cells[0])
        if pats and len(cells) >= 3:
            rows.append((pats, cells[1], cells[2]))
    return rows


def documented(test, rows):
    short = test.split(".", 1)[1] if test.startswith("tests.") else test
    return any(fnmatch.fnmatchcase(short, p) for pats, _, _ in rows for p in pats)


def lane(a):
    runs = []
    for dev, path in (("scenic_0", a.scenic_log), ("rxe0", a.rxe_log)):
        try:
            text = open(path, encoding="utf-8", errors="replace").read()
        except OSError:
            text = ""
        runs.append(parse_log(dev, text))
    sc, rx = runs
    tap = []
    for r in runs:
        print(f"suite {r.dev}: ok {r.count('ok')}, errors {r.count('error')}, "
              f"failures {r.count('failure')}, skipped {r.count('skipped')}")
        bad = check_totals(r)
        tap.append((not bad, f"{r.dev}: run_tests.py ended and its {len(r.tests)} per-test "
                    "results match unittest's totals", bad))
    for r in runs:
        for t, res, reason in r.tests:
            print(f"SUITE-TSV\t{r.dev}\t{t}\t{res}\t{reason}")
    sc_res = sc.results()
    broken = [f"{t} ({res})" for t, res in sc_res.items() if res in ("error", "failure")]
    tap.append((not broken, f"scenic_0: no error or failure ({len(broken)})", broken))
    rx_err = [f"{t} ({res})" for t, res in rx.results().items() if res in ("error", "failure")]
    for t in rx_err:
        print(f"# rxe0 (not fatal): {t}")
    worse = [f"{t}: scenic_0 {sc_res.get(t, 'missing')}" for t, res in rx.results().items()
             if res == "ok" and sc_res.get(t) != "ok"]
    print(f"suite: ok on rxe0, not ok on scenic_0: {len(worse)}")
    for w in worse:
        print(f"  {w}")
    tap.append((not worse, f"every test ok on rxe0 is ok on scenic_0 ({len(worse)} not)", worse))
    rows = doc_skips(a.doc)
    undoc = [t for t, res in sc_res.items() if res == "skipped" and not documented(t, rows)]
    print(f"suite: skips on scenic_0 not in docs/rdma.md: {len(undoc)}")
    for t in undoc:
        print(f"  {t}")
    tap.append((bool(rows) and not undoc,
                f"every scenic_0 skip is in docs/rdma.md's skip table ({len(rows)} rows, "
                f"{len(undoc)} missing)", undoc))
    tap.append((sc.count("ok") >= rx.count("ok") and sc.count("ok") > 0,
                f"scenic_0 ok {sc.count('ok')} >= rxe0 ok {rx.count('ok')}", []))
    print(f"1..{len(tap)}")
    for i, (ok, name, diag) in enumerate(tap, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - suite: {name}")
        for d in (diag if not ok else [])[:60]:
            print(f"# {d}")
    print(f"{sc.count('ok')} passed, {sc.count('error') + sc.count('failure')} failed, "
          f"{sc.count('skipped')} skipped")
    return 0 if all(ok for ok, _, _ in tap) else 1


def read_tsv(path):
    out = {}
    for line in open(path, encoding="utf-8"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) >= 2:
            out[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
    return out


def skips(a):
    sc, rx = read_tsv(a.scenic_tsv), read_tsv(a.rxe_tsv)
    print("# SPDX-License-Identifier: MIT")
    print("# rdma-core 44 test suite: test, scenic_0, rxe0, feature, scenic_0's skip reason")
    print("# generated by selftests/run-vm-tests --boot rdma-suite "
          "(selftests/rdma/pyverbs_suite.py)")
    for t in sorted(set(sc) | set(rx)):
        mod = t.split(".")[1] if t.startswith("tests.") else t.split(".")[0]
        feat = FEATURE.get(mod, "vendor DV (mlx5/EFA)" if mod.startswith(("test_mlx5",
                                                                          "test_efa")) else "")
        s, why = sc.get(t, ("missing", ""))
        print(f"{t}\t{s}\t{rx.get(t, ('missing', ''))[0]}\t{feat}\t{why if s != 'ok' else ''}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("lane")
    p.add_argument("--doc", required=True, help="docs/rdma.md (its skip table)")
    p.add_argument("scenic_log")
    p.add_argument("rxe_log")
    p = sub.add_parser("skips")
    p.add_argument("scenic_tsv")
    p.add_argument("rxe_tsv")
    a = ap.parse_args()
    return lane(a) if a.cmd == "lane" else skips(a)


if __name__ == "__main__":
    sys.exit(main())
