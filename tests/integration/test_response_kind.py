"""Every kind of response, arriving while each kind of request is xiw's
oldest outstanding one (issue 24, finding 1).

xiwtarget on xiw1 sends tests/reliability/response_kind_peer.py one
request of the kind the peer asks for (Read, the four atomics, Flush,
Verify, Atomic Write) and the peer answers with one message: a Read
Response, an Atomic, Flush, Verify or Atomic Write Response, Immediate
Data or a Terminate. Responses carry no request kind of their own but
their opcode: one that is not of the oldest request's kind is RDMAP's
Remote Operation Error, Unexpected OpCode (RFC 5040 section 7,
Documentation/conformance.md); the request completes in error and not
one octet of the target's memory changes — its canary pages and the
octets around the sink included. The answers of the request's own kind
are the positive controls: the request completes successfully and
exactly the sink's octets take what the response returned. Immediate
Data answers nothing: it completes a receive, and the request still
outstanding is flushed when the connection ends. A Terminate from the
peer ends the stream: the request completes in error, and xiw does not
answer a Terminate with one.
"""
import json
import os
import struct

import pytest

from conftest import TOP, xiw_links
from xiwperf_run import set_params

PEER = os.path.join(TOP, "tests", "reliability", "response_kind_peer.py")
TARGET = "192.0.2.2"
PORT = 18610
SINK_LEN = 64

REQUESTS = ["read", "fetch_add", "cmp_swap", "masked_fetch_add",
            "masked_cmp_swap", "flush", "verify", "atomic_write"]
ATOMICS = {"fetch_add", "cmp_swap", "masked_fetch_add", "masked_cmp_swap"}
RESPONSES = ["read_resp", "atomic_resp", "flush_resp", "verify_resp",
             "atomic_write_resp", "imm", "terminate"]
# The response each request is answered by.
ANSWER = {"read": "read_resp", "flush": "flush_resp",
          "verify": "verify_resp", "atomic_write": "atomic_write_resp",
          **{a: "atomic_resp" for a in ATOMICS}}
UNEXPECTED_OPCODE = [0, 2, 0x06]    # RDMAP, remote operation error
# ib_wc.opcode of a successful completion (masked atomics left out: the
# kernel's own numbering, not uapi).
WC_OPCODE = {"read": 2, "cmp_swap": 3, "fetch_add": 4, "flush": 8,
             "atomic_write": 9, "verify": 0x40}
# What lands in the sink for each answered request (response_kind_peer.py
# sends these): a Read's 64 octets, an Atomic's original value in host
# order, a Verify's 32-octet hash; nothing for Flush and Atomic Write.
LANDS = {"read": bytes(range(1, SINK_LEN + 1)),
         "verify": bytes(range(0xA0, 0xC0)),
         "flush": b"", "atomic_write": b"",
         **{a: struct.pack("<Q", 0x1122334455667788) for a in ATOMICS}}


@pytest.fixture
def target(hosts):
    vm = hosts
    xiw_links(vm)
    set_params(vm, crc_policy="preferred", markers="N")
    vm.run(f"ip netns exec b modprobe xiwtarget addr={TARGET} port={PORT}")
    yield vm
    vm.run("rmmod xiwtarget", check=False)


def run_cases(vm, request_kind):
    """Every response to one kind of request, one connection each, in one
    guest command: {response kind: what the peer saw}."""
    cases = [f"{request_kind}:{r}" for r in RESPONSES]
    res = vm.ns("a", f"/usr/bin/python3 -S {PEER} {TARGET} {PORT} "
                     + " ".join(cases), check=False, timeout=300)
    assert res.rc == 0, res
    out = {}
    for ln in res.out.splitlines():
        if ln.strip():
            r = json.loads(ln)
            out[r["response"]] = r
    assert len(out) == len(cases), res
    return out


def changed(r):
    return {int(k): v for k, v in r["changed"].items()}


def check_answered(request_kind, r):
    """Positive control: answered, no Terminate, exactly the sink took
    what the response returned."""
    req = r["req"]
    assert r["terminates"] == [] and req["status"] == 0, "not answered"
    if request_kind in WC_OPCODE:
        assert req["opcode"] == WC_OPCODE[request_kind], "wrong opcode"
    if request_kind == "verify":
        assert req["len"] == 32, "wrong hash length"
    got = changed(r)
    off = r["sink_off"]
    want = LANDS[request_kind]
    outside = sorted(i for i in got if not off <= i < off + len(want))
    assert not outside, (f"{len(outside)} octets changed outside what the "
                         f"response returns, first at blob offset "
                         f"{outside[0]} (sink at {off})")
    # An octet equal to what was there before does not show as changed.
    bad = [i for i, v in got.items() if v[1] != want[i - off]]
    assert not bad, f"sink octets {bad} are not what the response returned"


def check_refused(response_kind, r):
    """The request completes in error, nothing lands, and the Terminate
    is the RFC's (none for Immediate Data, which answers nothing, or for
    the peer's own Terminate)."""
    got = changed(r)
    assert not got, (f"{len(got)} octets changed, first at blob offset "
                     f"{min(got)} (sink at {r['sink_off']})")
    assert r["req"]["status"] != 0, "the request completed successfully"
    if response_kind == "imm":
        assert r["terminates"] == [], "a Terminate for Immediate Data"
        assert len(r["recv"]) == 1 and r["recv"][0]["imm"] == 0xABCD, \
            "Immediate Data did not complete a receive"
    elif response_kind == "terminate":
        assert r["terminates"] == [], "a Terminate answered a Terminate"
    else:
        assert r["terminates"] == [UNEXPECTED_OPCODE], "not the Terminate"


@pytest.mark.parametrize("request_kind", REQUESTS)
def test_each_response_kind_while_a_request_is_oldest(target, request_kind):
    """One request of @request_kind outstanding, then each response kind
    on a connection of its own; every case is checked, the failures are
    reported together."""
    results = run_cases(target, request_kind)
    failures = []
    for response_kind, r in results.items():
        try:
            assert r["req"]["completions"] == 1, "not completed once"
            if ANSWER[request_kind] == response_kind:
                check_answered(request_kind, r)
            else:
                check_refused(response_kind, r)
        except AssertionError as e:
            failures.append(f"{request_kind} <- {response_kind}: {e}: {r}")
    assert not failures, "\n".join(failures)
