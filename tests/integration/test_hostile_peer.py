"""A hostile peer against a live xiw QP: tests/reliability/hostile_peer.py
sends crafted and mutated FPDUs (every header field of MPA, DDP and RDMAP,
RFC 7306 and the commit draft's messages, at boundary and random values;
MPA markers and their FPDUPTR when the target asks for them; truncated
frames; frames split across TCP segments) to xiwtarget on xiw1
and checks each answer, the target's memory (canary pages included) and
its completions against the model of tests/reliability/model.py. This is
make check's slice of make fuzz: a fixed seed, so that a finding here is
replayable with the same command."""
import json
import os
import sys

import pytest

from conftest import TOP, wait_until, xiw_links
from xiwperf_run import set_params

PEER = os.path.join(TOP, "tests", "reliability", "hostile_peer.py")
sys.path.insert(0, os.path.dirname(PEER))
from hostile_peer import REGRESSIONS  # noqa: E402
TARGET = "192.0.2.2"
PORT = 18600
# Cases per mode: with the probe after each, about 10**4 FPDUs in all.
SLICE = int(os.environ.get("XIW_FUZZ_SLICE", 2100))
# make fuzz draws a seed and prints it; make check's slice is fixed.
SEED = int(os.environ.get("XIW_FUZZ_SEED", 20261125))
# Cases per mode of the stateful response fuzzing (--responses): each
# posts requests through debugfs and reads the target's state, so slower.
RESPONSES_SLICE = int(os.environ.get("XIW_FUZZ_RESPONSES_SLICE", 600))
# Peers at once, each on its own connections: the guest has two CPUs.
JOBS = int(os.environ.get("XIW_FUZZ_JOBS", 2))


def load_target(vm):
    xiw_links(vm)
    vm.run(f"ip netns exec b modprobe xiwtarget addr={TARGET} port={PORT}")


def unload_target(vm):
    vm.run("rmmod xiwtarget", check=False)


@pytest.fixture
def target(hosts):
    vm = hosts
    load_target(vm)
    yield vm
    unload_target(vm)
    set_params(vm, crc_policy="preferred", markers="N")


def fuzz(vm, args, timeout):
    res = vm.ns("a", f"/usr/bin/python3 -S {PEER} {TARGET} {PORT} {args}",
                check=False, timeout=timeout)
    lines = [json.loads(ln) for ln in res.out.splitlines() if ln.strip()]
    return res, lines


def fuzz_slice(vm, seed, cases, jobs, extra=""):
    """Cases 0..cases-1 of a seed, split among @jobs peers at once (one
    connection each; the guest has two CPUs). Returns the findings and the
    summed statistics."""
    per = -(-cases // jobs)
    cmds = " ".join(
        f"( ip netns exec a /usr/bin/python3 -S {PEER} {TARGET} {PORT} "
        f"--seed {seed} --first {j * per} "
        f"--frames {min(per, cases - j * per)} {extra} > /tmp/fuzz.{j} 2>&1; "
        f"echo rc=$? >> /tmp/fuzz.{j} ) &" for j in range(jobs))
    res = vm.run(f"{cmds} wait; cat " + " ".join(
        f"/tmp/fuzz.{j}" for j in range(jobs)),
        check=False, timeout=600 + cases // 5)
    findings, stats, rcs = [], {}, []
    for ln in res.out.splitlines():
        if ln.startswith("rc="):
            rcs.append(int(ln[3:]))
        elif ln.startswith("{"):
            d = json.loads(ln)
            if "finding" in d:
                findings.append(d)
            else:
                for k, v in d.items():
                    stats[k] = stats.get(k, 0) + v
        elif ln.strip():
            findings.append({"output": ln})
    if rcs != [0] * jobs and not findings:
        findings.append({"output": res.out[-3000:]})
    return findings, stats


# The target's settings: CRC policy, and whether it asks for markers.
MODES = {"off": ("off", "N"), "required": ("required", "N"),
         "required_markers": ("required", "Y")}


@pytest.mark.parametrize("mode", list(MODES))
def test_hostile_frames_get_the_rfc_answer_and_touch_nothing_else(target,
                                                                   mode):
    crc, markers = MODES[mode]
    set_params(target, crc_policy=crc, markers=markers)
    seed = SEED + {"off": 1, "required": 0, "required_markers": 2}[mode]
    print(f"hostile peer: seed {seed}, {SLICE} cases, {mode}")
    findings, stats = fuzz_slice(target, seed, SLICE, JOBS)
    print(f"hostile peer: {json.dumps(stats)}")
    assert not findings, "\n".join(map(json.dumps, findings))
    # The slice exercised both sides of every oracle.
    assert stats["cases"] == SLICE, stats
    assert stats["fpdus"] >= SLICE * 3 // 2, stats
    assert stats["accepted"] > SLICE // 5, stats
    assert stats["terminated"] > SLICE // 10, stats
    assert stats["closed"] > 0 and stats["truncated"] > 0, stats
    # With markers: many checked, some refused.
    assert (stats["markers"] > SLICE // 4) == (markers == "Y"), stats
    assert (stats["marker_faults"] > 0) == (markers == "Y"), stats


@pytest.mark.parametrize("mode", list(MODES))
def test_hostile_responses_complete_the_right_request_and_touch_nothing(
        target, mode):
    """Stateful response fuzzing: the target keeps requests of every kind
    outstanding (Read, the four atomics, Atomic Write, Flush, Verify) and
    the peer answers with sequences of responses, in order or not, of the
    wrong kind, with wrong MSNs, mixed with Terminates and its own
    messages. Each work request completes as the model says (which one,
    success or error), the target's Terminate has a cause the model
    allows, and not one octet of the sink or its canaries changes but
    what the accepted responses returned."""
    crc, markers = MODES[mode]
    set_params(target, crc_policy=crc, markers=markers)
    seed = SEED + {"off": 11, "required": 10, "required_markers": 12}[mode]
    print(f"hostile peer --responses: seed {seed}, {RESPONSES_SLICE} cases, "
          f"{mode}")
    findings, stats = fuzz_slice(target, seed, RESPONSES_SLICE, JOBS,
                                 "--responses")
    print(f"hostile peer --responses: {json.dumps(stats)}")
    assert not findings, "\n".join(map(json.dumps, findings))
    n = RESPONSES_SLICE
    assert stats["cases"] == n, stats
    # Requests were outstanding, answers completed some and failed some.
    assert stats["posted"] > n // 2 and stats["wr_ok"] > n // 5, stats
    assert stats["accepted"] > n // 5, stats
    assert stats["terminated"] > n // 20 and stats["closed"] > 0, stats


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_past_finding_stays_fixed(target, name):
    """Each finding of the fuzzing, replayed as fixed cases through the
    same oracles (see REGRESSIONS in hostile_peer.py)."""
    set_params(target, crc_policy="off")
    res, lines = fuzz(target, f"--regression {name}", 120)
    findings = [ln for ln in lines if "finding" in ln]
    assert res.rc == 0 and not findings, "\n".join(map(json.dumps, findings)) \
        or res
    assert lines[-1]["cases"] == len(REGRESSIONS[name]), lines


HOLD = """import sys
sys.path.insert(0, "{dir}")
import hostile_peer
link = hostile_peer.Link("{addr}", {port})
print("up", flush=True)
print("eof" if link.fpdu() is None else "more", flush=True)
"""


def test_target_lets_its_device_go(target):
    """Deleting the target's device while the target listens on it and
    has a connection open completes: xiwtarget lets go of all it holds on
    the device (a test module must not hold a device up), the peer's
    stream ends, and no connection is left behind."""
    vm = target
    vm.run("cat > /tmp/hold.py <<'EOF'\n" + HOLD.format(
        dir=os.path.dirname(PEER), addr=TARGET, port=PORT) + "EOF")
    vm.run("ip netns exec a /usr/bin/python3 -S /tmp/hold.py > /tmp/hold 2>&1 &")
    wait_until(vm, "grep -q up /tmp/hold", "the peer is connected")
    vm.run("ip netns exec b rdma link delete xiw1", timeout=60)
    wait_until(vm, "grep -q eof /tmp/hold", "the peer's stream ended")
    assert vm.run("ls /sys/kernel/debug/xiwtarget").out.split() == \
        ["poke", "reap"]
