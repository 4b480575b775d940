"""Connection setup against peers that do not speak MPA properly: xiw
closes the TCP connection, reports nothing to a listening ULP (no
CONNECT_REQUEST for garbage) or fails the connecting ULP's connect, never
hangs (every step has mpa_timeout_ms), and keeps serving real clients."""
import errno
import os

import pytest

import cm_trace
from conftest import TOP, wait_until
from xiwperf_run import client, set_params, stop_server

PEER = os.path.join(TOP, "tests", "integration", "mpa_peer.py")
SERVER = "192.0.2.2"
FAKE_PORT = 18600
TIMEOUT_MS = 1500

REQ = b"MPA ID Req Frame".hex()
REP = b"MPA ID Rep Frame".hex()

# What a client sends to xiw's listener instead of a valid MPA Request.
BAD_REQUESTS = {
    "http": (b"GET / HTTP/1.0\r\n\r\n" + b" " * 20).hex(),
    "reply_key": REP + "40020000",
    "revision_3": REQ + "40030000",
    "revision_0": REQ + "40000000",
    "reject_bit_in_request": REQ + "60020004" + "00000000",
    "pd_length_513": REQ + "40020201" + "00" * 513,
    "enhanced_without_room": REQ + "50020002" + "0000",
    "truncated_header": REQ[:20],
    "header_without_private_data": REQ + "40020040",
    "nothing": "",
}


@pytest.fixture
def short_timeouts(pair):
    set_params(pair, mpa_timeout_ms=TIMEOUT_MS)
    yield pair
    set_params(pair, mpa_timeout_ms=10000)


@pytest.mark.parametrize("case", BAD_REQUESTS)
def test_bad_mpa_request_is_dropped_without_an_event(short_timeouts, case):
    vm = short_timeouts
    cm_trace.start(vm)
    res = vm.ns("a", f"/usr/bin/python3 -S {PEER} send {SERVER} 18515 "
                     f"'{BAD_REQUESTS[case]}' --wait 30", check=False,
                timeout=60)
    assert res.rc == 0, res      # xiw closed it: "closed" or "reset"
    assert res.out.strip() in ("closed", "reset"), res
    events = cm_trace.stop(vm)
    assert not any("CONNECT_REQUEST" in ev for ev in events.values()), \
        dict(events)
    # The listener is intact.
    client(vm, "a", SERVER, "--op", "send", "--size", 100, "--count", 5,
           "--check")


def fake_responder(vm, answer, close=False):
    """A plain TCP listener in b that reads the MPA Request and answers
    `answer` (with close, its FIN in the answer's last segment); returns
    the file its verdict goes to."""
    log = f"/tmp/mpa-peer-{FAKE_PORT}.log"
    # Emptied first: the job opens its log only after the fork, and the
    # last test's "listening" must not be read as this one's.
    vm.run(f": > {log}; ip netns exec b /usr/bin/python3 -S {PEER} listen "
           f"{SERVER} {FAKE_PORT} '{answer}' --dump --wait 30"
           f"{' --close' if close else ''} "
           f">> {log} 2>&1 &")
    wait_until(vm, f"grep -q listening {log}", "fake responder listening")
    return log


# A valid accepting Reply: C, S, revision 2, IRD = ORD = 1.
GOOD_REPLY = REP + "50020004" + "00010001"

# What a fake responder answers to xiw's MPA Request (revision 2, S set).
BAD_REPLIES = {
    "silent": "silent",
    "garbage": "garbage",
    "reset": "reset",
    "request_key": REQ + "50020004" + "00010001",
    "other_revision": REP + "40010000",
    "enhanced_data_missing": REP + "40020000",
    "pd_length_513": REP + "50020201" + "00" * 513,
    "truncated_private_data": REP + "50020010" + "00010001",
    # A Reject (R), then an accepting Reply: the first answer stands.
    "reply_after_reject": REP + "70020004" + "00010001" + GOOD_REPLY,
    # The peer-to-peer model (A) with RTR kinds, which xiw did not offer
    # (p2p=N): not a Reply to this Request.
    "p2p_not_offered": REP + "50020004" + "c0014001",
    # A valid Reply an octet every half second: 12 s in all, each octet
    # well within mpa_timeout_ms of the last; the timeout bounds the
    # whole handshake, not the gaps.
    "valid_reply_trickled": "slow:" + GOOD_REPLY,
}


@pytest.mark.parametrize("case", BAD_REPLIES)
def test_bad_mpa_reply_fails_the_connect(short_timeouts, case):
    vm = short_timeouts
    log = fake_responder(vm, BAD_REPLIES[case])
    rc, r = client(vm, "a", SERVER, "--port", FAKE_PORT, "--op", "send",
                   "--size", 100, "--count", 1, check=False)
    assert rc == 1, r
    assert r["completed"] == 0, r
    if case in ("silent", "truncated_private_data", "valid_reply_trickled"):
        assert "timed out" in r["error"], r
    wait_until(vm, f"grep -qE '^(closed|reset)$' {log}",
               "xiw closed the fake responder's connection")
    # Not one octet after its Request: no RTR, no FPDU, whatever came
    # after the answer that ended the handshake.
    sent = [ln for ln in vm.run(f"cat {log}").out.splitlines()
            if ln.startswith("data")]
    assert sent in ([], ["data "]), sent
    # The same device still connects to a real server.
    client(vm, "a", SERVER, "--op", "send", "--size", 100, "--count", 5,
           "--check")


# A Reject (C, R, S; IRD = ORD = 1), the responder's FIN in its segment.
REJECT = REP + "70020004" + "00010001"
ROUNDS = 8


def test_a_reject_that_comes_with_the_fin_still_rejects(pair):
    """A responder that rejects and closes at once: its FIN in the
    Reject's segment. TCP signals the close before the data, and the
    connect must end as the Reject says (ECONNREFUSED), not as a reset
    (ECONNRESET) that lost the Reject; ROUNDS connections, each its own
    chance at the race."""
    vm = pair
    cm_trace.start(vm)
    for _ in range(ROUNDS):
        log = fake_responder(vm, REJECT, close=True)
        rc, r = client(vm, "a", SERVER, "--port", FAKE_PORT, "--op", "send",
                       "--size", 100, "--count", 1, check=False)
        assert rc == 1, r
        wait_until(vm, f"grep -qE '^(closed|reset)$' {log}",
                   "xiw closed the fake responder's connection")
    out = cm_trace.read_and_clear(vm)
    status = [int(m.group(6)) for m in cm_trace.LINE.finditer(out)
              if m.group(4) == "REJECTED"]
    assert status == [-errno.ECONNREFUSED] * ROUNDS, out


def test_destroying_a_listen_closes_connections_still_awaiting_their_request(pair):
    """A TCP connection accepted for a listen whose MPA Request has not come
    yet must not outlive the listen: with the handshake timeout at ten
    minutes, only the listen's destruction can close it."""
    vm = pair
    set_params(vm, mpa_timeout_ms=600000)
    try:
        log = "/tmp/mpa-peer-silent.log"
        vm.run(f": > {log}; ip netns exec a /usr/bin/python3 -S {PEER} send "
               f"{SERVER} 18515 '' --wait 300 >> {log} 2>&1 &")
        wait_until(vm, "ip netns exec b ss -Htn state established "
                       "'( sport = :18515 )' | grep -q .",
                   "xiw accepted the silent connection")
        cm_trace.start(vm)
        stop_server(vm, "/tmp/xiwperf-server-b.log")
        wait_until(vm, f"grep -qE '^(closed|reset)$' {log}",
                   "xiw closed the silent connection with its listen")
        events = cm_trace.stop(vm)
        assert not any("CONNECT_REQUEST" in ev for ev in events.values()), \
            dict(events)
    finally:
        set_params(vm, mpa_timeout_ms=10000)
