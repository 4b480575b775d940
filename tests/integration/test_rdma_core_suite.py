"""rdma-core's own test suite (Debian's python3-pyverbs ships it under
/usr/share/doc/rdma-core/tests, its modules gzipped), unmodified, run
against xiw through xiw's provider and against stock siw with its stock
provider in the same guest: xiw fails none of it, passes every test siw
passes, and skips exactly the tests Documentation/testing.md lists, each
with the reason the suite gives ("rdma-core's own test suite" there).

xiw0 on v0 in a, siw0 on v1 in b (the xiw_and_siw fixture).
"""
import os
import re

from conftest import TOP
from test_userspace_verbs import ENV, PROVIDER

SUITE = "/usr/share/doc/rdma-core/tests"
TESTING_MD = os.path.join(TOP, "Documentation", "testing.md")
# One verbose unittest line per test: its name, the module path in
# parentheses, then (on a line of its own if the test has a docstring,
# after the docstring's first line) its outcome.
RESULT = re.compile(
    r"^\w+ \((tests\.[\w.]+)\)(?:\n[^\n]*?)? \.\.\. "
    r"(ok|FAIL|ERROR|expected failure|unexpected success|"
    r"skipped (['\"])(.*)\3)$", re.M)


def run_suite(vm, dev, ns, env=""):
    """{test id: "ok" | "FAIL" | ... | "skipped: reason"} of one run of
    the whole suite on dev, from a process in namespace ns."""
    res = vm.run(f"cd /tmp/rdma-core-tests && ip netns exec {ns} env {env}"
                 f"python3 tests/run_tests.py --dev {dev} -v",
                 timeout=900, check=False)
    ran = re.search(r"^Ran (\d+) tests? in ", res.err, re.M)
    assert ran, f"the suite did not run on {dev}:\n{res}"
    out = {}
    for m in RESULT.finditer(res.err):
        out[m.group(1)] = ("skipped: " + m.group(4) if m.group(4) is not None
                           else m.group(2))
    assert len(out) == int(ran.group(1)), \
        f"{len(out)} outcomes read of the {ran.group(1)} tests run on {dev}:\n" \
        + res.err[-6000:]
    return out, res


def documented_skips():
    """{test id: reason} from testing.md: each item of the list under
    "#### Where the suite skips on xiw" is '- "reason" (N): why. Tests:'
    followed by the tests' ids in backquotes, without their "tests."."""
    with open(TESTING_MD) as f:
        text = f.read()
    section = text.partition("#### Where the suite skips on xiw\n")[2]
    assert section, "testing.md lists no skips of rdma-core's suite"
    section = re.split(r"^#", section, maxsplit=1, flags=re.M)[0]
    out = {}
    for item in re.split(r"^- ", section, flags=re.M)[1:]:
        m = re.match(r'"(.+?)" \((\d+)\):', item)
        assert m, f"an item of testing.md's skip list without its reason: {item}"
        names = re.findall(r"`([\w.]+)`", item.partition("Tests:")[2])
        assert len(names) == int(m.group(2)), \
            f"testing.md says {m.group(2)} tests skip for {m.group(1)!r} " \
            f"and names {len(names)}"
        for name in names:
            out["tests." + name] = m.group(1)
    return out


def test_rdma_cores_own_tests_pass_on_xiw_where_they_pass_on_siw(
        xiw_and_siw):
    vm = xiw_and_siw
    assert os.path.exists(PROVIDER + "-rdmav34.so"), "make all first"
    vm.run("modprobe ib_uverbs && modprobe rdma_ucm")
    vm.run(f"rm -rf /tmp/rdma-core-tests && mkdir /tmp/rdma-core-tests && "
           f"cp -r {SUITE} /tmp/rdma-core-tests/tests && "
           "gunzip /tmp/rdma-core-tests/tests/*.gz")

    siw, _ = run_suite(vm, "siw0", "b")
    xiw, res = run_suite(vm, "xiw0", "a", ENV)

    broken = {k: v for k, v in xiw.items()
              if v not in ("ok", "expected failure")
              and not v.startswith("skipped: ")}
    assert not broken, f"failed on xiw: {broken}\n{res.err[-8000:]}"
    # The suite is the same on both devices, and siw's passes are xiw's.
    assert set(siw) == set(xiw)
    lost = sorted(k for k, v in siw.items() if v == "ok" and xiw[k] != "ok")
    assert not lost, f"pass on siw, not on xiw: {lost}"
    passed = sorted(k for k, v in xiw.items() if v == "ok")
    assert len(passed) >= len([v for v in siw.values() if v == "ok"]) > 0

    skipped = {k: v[len("skipped: "):] for k, v in xiw.items()
               if v.startswith("skipped: ")}
    documented = documented_skips()
    undocumented = {k: v for k, v in skipped.items()
                    if documented.get(k) != v}
    stale = sorted(set(documented) - set(skipped))
    assert not undocumented and not stale, \
        f"skips on xiw that testing.md does not list (or with another " \
        f"reason): {undocumented}\nlisted there, not skipped: {stale}"
