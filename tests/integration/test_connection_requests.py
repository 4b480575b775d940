"""Connection requests nobody answers. iw_cm refuses a CONNECT_REQUEST
when the listen's backlog of work entries is used up, drops one queued
for a listen being destroyed, and a ULP may never answer one at all: in
each case xiw itself rejects the request (an MPA Reply with R set, then a
FIN) and lets go of its endpoint, at once when iw_cm refused, after
mpa_timeout_ms otherwise. Deleting the device, which waits for every
endpoint, then completes.

xiwtarget on xiw1 is the listening ULP: answer=hold makes its first
request's handler block (iw_cm delivers from one ordered workqueue, so
the requests after it queue up and use up the backlog), answer=ignore
answers nothing."""
import json
import os

import cm_trace
from conftest import TOP, xiw_links
from xiwperf_run import set_params

PEER = os.path.join(TOP, "tests", "integration", "mpa_peer.py")
TARGET = "192.0.2.2"
PORT = 18600
REQUESTS = 50
RELEASE = "/sys/kernel/debug/xiwtarget/release"


def load_target(vm, answer, backlog, timeout_ms):
    xiw_links(vm)
    set_params(vm, mpa_timeout_ms=timeout_ms)
    vm.run(f"ip netns exec b modprobe xiwtarget addr={TARGET} port={PORT} "
           f"backlog={backlog} answer={answer}")


def flood(vm, n, *args, wait=30):
    """mpa_peer.py flood: its last line (JSON counts, or "gone")."""
    res = vm.ns("a", f"/usr/bin/python3 -S {PEER} flood {TARGET} {PORT} "
                     f"{n} --wait {wait} " + " ".join(args),
                timeout=wait + 120)
    return res.out.strip().splitlines()[-1]


def delete_link_in_bound(vm):
    """rdma link delete waits for every endpoint of the device: a leaked
    one makes it hang (the guest command's timeout fails the test)."""
    res = vm.run("ip netns exec b rdma link delete xiw1", timeout=60,
                 check=False)
    assert res.rc == 0, f"rdma link delete did not complete:\n{res}"


def test_requests_beyond_the_backlog_are_rejected(hosts):
    """Backlog 1 and a handler that blocks: of 50 MPA Requests, iw_cm
    takes at most two (the one being handled and one queued) and refuses
    the rest with -ENOMEM. Each refused one gets its Reject at once
    (mpa_timeout_ms is ten minutes: no timeout does it), the peer walks
    away, and deleting the device completes."""
    vm = hosts
    load_target(vm, "hold", 1, 600000)
    try:
        counts = json.loads(flood(vm, REQUESTS, wait=20))
    finally:
        vm.run(f"echo 1 > {RELEASE}")
    assert counts["accepted"] == 0 and counts["other"] == 0, counts
    assert counts["rejected"] >= REQUESTS - 2, counts
    delete_link_in_bound(vm)
    vm.run("rmmod xiwtarget")


def test_a_peer_walking_away_leaves_no_endpoint(hosts):
    """The same flood, but the peer closes every connection right after
    its Request: whether xiw saw the close before or after iw_cm refused
    the request, no endpoint is left to hold the device."""
    vm = hosts
    load_target(vm, "hold", 1, 600000)
    try:
        assert flood(vm, REQUESTS, "--walk-away") == "gone"
        # Every connection is over on xiw's side too (closed or waiting
        # for its close to finish), none still established.
        res = vm.run("i=0; while ip netns exec b ss -Htn state established "
                     f"'( sport = :{PORT} )' | grep -q .; do "
                     "[ $i -lt 400 ] || exit 1; i=$((i+1)); sleep 0.05; done",
                     timeout=120, check=False)
        established = vm.ns("b", f"ss -Htn state established "
                                 f"'( sport = :{PORT} )'").out
    finally:
        vm.run(f"echo 1 > {RELEASE}")
    assert res.rc == 0, established
    delete_link_in_bound(vm)
    vm.run("rmmod xiwtarget")


def test_requests_iw_cm_drops_or_nobody_answers_are_rejected(hosts):
    """Two requests while the handler of the first is held: the second is
    queued in iw_cm (or refused, if it came before the first was taken).
    Unloading the target destroys its listen, and iw_cm drops the queued
    request without a word to xiw: only mpa_timeout_ms ends it, with a
    Reject. The first is destroyed unanswered by the target, which
    rejects it. The peer gets two Rejects."""
    vm = hosts
    load_target(vm, "hold", 1, 1500)
    cm_trace.start(vm)
    vm.run(f"ip netns exec a /usr/bin/python3 -S {PEER} flood {TARGET} "
           f"{PORT} 2 --wait 60 > /tmp/flood.log 2>&1 &")
    try:
        # The first request's handler runs (and blocks).
        cm_trace.wait_for(vm, "CONNECT_REQUEST", 1)
    finally:
        cm_trace.stop(vm)
        vm.run("rmmod xiwtarget")
    res = vm.run("i=0; until grep -q '}' /tmp/flood.log; do "
                 "[ $i -lt 1800 ] || exit 1; i=$((i+1)); sleep 0.05; done; "
                 "cat /tmp/flood.log", timeout=180, check=False)
    assert res.rc == 0, res
    counts = json.loads(res.out.strip().splitlines()[-1])
    assert counts["rejected"] == 2, counts
    delete_link_in_bound(vm)


def test_a_request_no_ulp_answers_is_rejected_after_the_timeout(hosts):
    """A listening ULP that never answers: after mpa_timeout_ms xiw
    rejects the requests; the ULP's own reject, when it destroys the ids
    later, finds them gone and changes nothing."""
    vm = hosts
    load_target(vm, "ignore", 16, 1500)
    counts = json.loads(flood(vm, 3, wait=60))
    assert counts["rejected"] == 3, counts
    vm.run("rmmod xiwtarget")
    delete_link_in_bound(vm)
