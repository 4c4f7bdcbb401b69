#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Host test of pyverbs_suite.py (the rdma-suite lane's parser): unittest -v output in its
shapes (result on the start line, after a docstring line, on a line of its own after the test's
own output, class-level skips), the totals check, the skip table of docs/rdma.md, and the
lane's verdicts. Run: python3 selftests/rdma/test_pyverbs_suite.py"""

import contextlib
import io
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pyverbs_suite as ps  # noqa: E402

SCENIC_LOG = """\
test_a (tests.test_pd.PDTest.test_a) ... ok
test_b (tests.test_qp.QPTest.test_b)
Docstring of test_b ... skipped 'Create UD QP without attrs is not supported'
test_c (tests.test_rdmacm.CMTestCase.test_c) ... Player active got: Errno: 95
ERROR
test_d (tests.test_rdmacm.CMTestCase.test_d) ... is_fork_initialized() = 2
ok
setUpClass (tests.test_mr.DmaBufTestCase) ... skipped 'no /dev/dri'

======================================================================
ERROR: test_c (tests.test_rdmacm.CMTestCase.test_c)
----------------------------------------------------------------------
Ran 4 tests in 1.0s

FAILED (errors=1, skipped=2)
"""

RXE_LOG = """\
test_a (tests.test_pd.PDTest.test_a) ... ok
test_b (tests.test_qp.QPTest.test_b) ... ok
test_c (tests.test_rdmacm.CMTestCase.test_c) ... skipped 'no net interface'
test_d (tests.test_rdmacm.CMTestCase.test_d) ... FAIL
----------------------------------------------------------------------
Ran 4 tests in 1.0s

FAILED (failures=1, skipped=1)
"""

DOC = """\
# RDMA
## Other
| `test_qp.QPTest.test_b` | not this table | x |
### Skips on scenic_0
| tests | feature | why |
| --- | --- | --- |
| `test_qp.QPTest.test_b`, `test_odp.*` | UD QPs | EOPNOTSUPP |
"""


class ParseTest(unittest.TestCase):
    def test_shapes(self):
        run = ps.parse_log("scenic_0", SCENIC_LOG)
        self.assertEqual(run.tests, [
            ("tests.test_pd.PDTest.test_a", "ok", ""),
            ("tests.test_qp.QPTest.test_b", "skipped",
             "Create UD QP without attrs is not supported"),
            ("tests.test_rdmacm.CMTestCase.test_c", "error", ""),
            ("tests.test_rdmacm.CMTestCase.test_d", "ok", ""),
            ("tests.test_mr.DmaBufTestCase.setUpClass", "skipped", "no /dev/dri")])
        self.assertEqual(run.ran, 4)
        self.assertEqual(run.closing, {"failures": 0, "errors": 1, "skipped": 2})
        self.assertEqual(ps.check_totals(run), [])

    def test_totals_mismatch_and_unfinished_run(self):
        lost = SCENIC_LOG.replace("ERROR\n", "")  # a result line the parser never saw
        self.assertTrue(ps.check_totals(ps.parse_log("scenic_0", lost)))
        cut = SCENIC_LOG.split("Ran 4")[0]  # killed at the time limit
        self.assertTrue(ps.check_totals(ps.parse_log("scenic_0", cut)))

    def test_doc_table(self):
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write(DOC)
        try:
            rows = ps.doc_skips(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(len(rows), 1)
        self.assertTrue(ps.documented("tests.test_qp.QPTest.test_b", rows))
        self.assertTrue(ps.documented("tests.test_odp.OdpTestCase.test_x", rows))
        self.assertFalse(ps.documented("tests.test_qp.QPTest.test_bb", rows))


class LaneTest(unittest.TestCase):
    def lane(self, scenic, rxe, doc=DOC):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, text in (("s.log", scenic), ("r.log", rxe), ("doc.md", doc)):
                paths.append(os.path.join(d, name))
                with open(paths[-1], "w") as f:
                    f.write(text)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = ps.lane(type("A", (), {"scenic_log": paths[0], "rxe_log": paths[1],
                                            "doc": paths[2]}))
        return rc, out.getvalue()

    def test_fails_on_error_regression_and_undocumented_skip(self):
        rc, out = self.lane(SCENIC_LOG, RXE_LOG)
        self.assertEqual(rc, 1)
        self.assertIn("suite scenic_0: ok 2, errors 1, failures 0, skipped 2", out)
        self.assertIn("suite rxe0: ok 2, errors 0, failures 1, skipped 1", out)
        self.assertIn("not ok 3 - suite: scenic_0: no error or failure (1)", out)
        # test_b: ok on rxe0, skipped on scenic_0
        self.assertIn("suite: ok on rxe0, not ok on scenic_0: 1", out)
        # the class-level dma-buf skip has no row
        self.assertIn("suite: skips on scenic_0 not in docs/rdma.md: 1", out)
        self.assertIn("SUITE-TSV\trxe0\ttests.test_rdmacm.CMTestCase.test_d\tfailure\t", out)
        self.assertTrue(out.rstrip().endswith("2 passed, 1 failed, 2 skipped"))

    def test_passes_when_clean(self):
        scenic = "\n".join(["test_a (tests.test_pd.PDTest.test_a) ... ok",
                            "test_b (tests.test_qp.QPTest.test_b) ... skipped 'UD'",
                            "test_c (tests.test_rdmacm.CMTestCase.test_c) ... ok",
                            "Ran 3 tests in 1s", "", "OK (skipped=1)", ""])
        rxe = "\n".join(["test_a (tests.test_pd.PDTest.test_a) ... ok",
                         "test_b (tests.test_qp.QPTest.test_b) ... skipped 'x'",
                         "test_c (tests.test_rdmacm.CMTestCase.test_c) ... ERROR",
                         "Ran 3 tests in 1s", "", "FAILED (errors=1, skipped=1)", ""])
        rc, out = self.lane(scenic, rxe)
        self.assertEqual(rc, 0, out)
        self.assertIn("1..6", out)
        self.assertFalse([x for x in out.splitlines() if x.startswith("not ok")], out)

    def test_fails_with_fewer_ok_or_no_run(self):
        rc, out = self.lane(SCENIC_LOG.split("Ran 4")[0], RXE_LOG)
        self.assertEqual(rc, 1)
        self.assertIn("not ok 1 - suite: scenic_0: run_tests.py ended", out)


if __name__ == "__main__":
    unittest.main()
