"""The Terminate xiw sends when a peer breaks the rules, byte for byte:
layer/type/code, and the header-control bits with what RFC 5040 figure 10
says to include — the faulty segment's length and DDP header for DDP and
RDMAP errors, the Read Request's RDMAP header for a remote protection
error on one. The peer is mpa_peer.py: a real MPA handshake with an xiw
xiwperf server, then hand-framed FPDUs."""
import json
import os
import struct

import pytest

from conftest import TOP
from xiwperf_run import (counted, hw_counters, set_params, start_server,
                         stop_server)

PEER = os.path.join(TOP, "tests", "integration", "mpa_peer.py")
SERVER = "192.0.2.2"
# An xiwperf hello (tools/xiwperf/kmod/proto.h): magic, version 1, op read,
# 1 byte, depth 1, count 1, connection 0. The server posts no receives.
HELLO = struct.pack(">IHBBIIQII", 0x58505246, 1, 3, 0, 1, 1, 1, 0, 0)
TERMINATE = 7
M, D, R = 1 << 15, 1 << 14, 1 << 13


def fpdu(ulpdu):
    """MPA framing without CRC (none negotiated) or markers."""
    pad = -(len(ulpdu) + 2) % 4
    return struct.pack(">H", len(ulpdu)) + ulpdu + b"\0" * pad + b"\0" * 4


def tagged(op, stag, to, payload=b""):
    return bytes([0xC1, 0x40 | op]) + struct.pack(">IQ", stag, to) + payload


def untagged(op, qn, msn, mo=0, body=b""):
    return (bytes([0x41, 0x40 | op]) + b"\0" * 4
            + struct.pack(">III", qn, msn, mo) + body)


def read_request(src_stag):
    return struct.pack(">IQIIQ", 0x1234, 0x1000, 64, src_stag, 0)


def atomic_request(aop, stag, to, req_id=7):
    """RFC 7306 figure 4: AOpCode, Request Identifier, Remote STag and
    Tagged Offset, Add/Swap Data and Mask, Compare Data and Mask."""
    return struct.pack(">IIIQQQQQ", aop, req_id, stag, to, 1, 0, 0,
                       (1 << 64) - 1)


def flush(stag, flags, to=0, length=8):
    """Documentation/commit-draft.md: Data Sink STag, Length, Tagged
    Offset, Flags."""
    return struct.pack(">IIQI", stag, length, to, flags)


def atomic_write(stag, to, length=8, value=42):
    """Documentation/commit-draft.md: Data Sink STag, Length, Tagged
    Offset, Data."""
    return struct.pack(">IIQQ", stag, length, to, value)


def term(ctrl_layer, etype, code):
    return ctrl_layer << 28 | etype << 24 | code << 16


@pytest.fixture
def peer(pair):
    set_params(pair, crc_policy="off")
    yield pair
    set_params(pair, crc_policy="preferred")


def exchange(vm, *ulpdus, hello=HELLO, corrupt=None, port=18515,
             close=False):
    frames = b"".join(fpdu(u) for u in ulpdus)
    extra = f" --corrupt {corrupt}" if corrupt else ""
    extra += " --close" if close else ""
    res = vm.ns("a", f"/usr/bin/python3 -S {PEER} rdma {SERVER} {port} "
                     f"{hello.hex()} {frames.hex()} --wait 30{extra}",
                check=False, timeout=60)
    assert res.rc == 0, res
    return [json.loads(ln) for ln in res.out.splitlines() if ln.strip()]


def the_terminate(frames):
    terms = [f for f in frames if f["opcode"] == TERMINATE]
    assert len(terms) == 1, frames
    return terms[0]["term_ctrl"], bytes.fromhex(terms[0]["term_rest"])


def test_write_to_unknown_stag_terminates_with_ddp_header(peer):
    seg = tagged(0, 0xDEAD0100, 0, b"abcd")
    ctrl, rest = the_terminate(exchange(peer, seg))
    # DDP, tagged buffer error, invalid STag; M and D, not R.
    assert ctrl == term(1, 1, 0x00) | M | D, hex(ctrl)
    assert rest == struct.pack(">H", len(seg)) + seg[:14], rest.hex()


def test_a_bad_fpdu_that_comes_with_the_fin_still_gets_its_terminate(peer):
    """A peer's last FPDU, a Write to an unknown STag, in the segment of
    its FIN: TCP signals the close before the data, and still the FPDU
    is taken and answered with its Terminate before xiw closes. Twelve
    connections, each its own chance at the race."""
    for _ in range(12):
        got = exchange(peer, tagged(0, 0xDEAD0100, 0, b"abcd"), close=True)
        assert [f["opcode"] for f in got] == [TERMINATE], got
        assert got[0]["term_ctrl"] >> 16 == term(1, 1, 0) >> 16, got


def test_read_request_for_unknown_stag_includes_rdma_header(peer):
    rr = read_request(0xDEAD0100)
    seg = untagged(1, 1, 1, body=rr)
    ctrl, rest = the_terminate(exchange(peer, seg))
    # RDMAP, remote protection error, invalid STag; M, D and R.
    assert ctrl == term(0, 1, 0x00) | M | D | R, hex(ctrl)
    assert rest == struct.pack(">H", len(seg)) + seg[:18] + rr, rest.hex()


def test_send_without_posted_receive_terminates_with_ddp_header(peer):
    seg = untagged(3, 0, 1, body=b"hello")
    ctrl, rest = the_terminate(exchange(peer, seg))
    # DDP, untagged buffer error, no buffer available.
    assert ctrl == term(1, 2, 0x02) | M | D, hex(ctrl)
    assert rest == struct.pack(">H", len(seg)) + seg[:18], rest.hex()


def test_bad_ddp_version_terminates_with_control_only(peer):
    """Found in the first four octets: no header is complete to include."""
    seg = bytearray(tagged(0, 0xDEAD0100, 0, b"abcd"))
    seg[0] = 0xC2                               # DDP version 2
    ctrl, rest = the_terminate(exchange(peer, bytes(seg)))
    assert ctrl >> 28 == 1 and not ctrl & (M | D | R), hex(ctrl)
    assert rest == b"", rest.hex()


# One segment per case: (segment, expected control field, headers
# included). The server's connection runs a Read test: it posts no receive,
# so every untagged check before the buffer lookup is what fires.
def _rv2(seg):
    seg = bytearray(seg)
    seg[1] = (seg[1] & 0x3f) | 0x80             # RDMAP version 2
    return bytes(seg)


CASES = {
    "invalid_qn": (untagged(3, 5, 1, body=b"hi"), term(1, 2, 0x01), True),
    "msn_not_the_next": (untagged(3, 0, 2, body=b"hi"), term(1, 2, 0x03),
                         True),
    "mo_not_zero_on_a_first_segment": (untagged(3, 0, 1, mo=4, body=b"hi"),
                                       term(1, 2, 0x04), True),
    "read_response_without_read": (tagged(2, 0x1234, 0, b"abcd"),
                                   term(0, 2, 0x06), True),
    "reserved_opcode": (untagged(0x12, 0, 1), term(0, 2, 0x06), False),
    "last_five_bit_opcode": (untagged(0x1F, 1, 1), term(0, 2, 0x06), False),
    # RDMA Verify (commit draft section 3.1.2): the STag first; an
    # expected hash longer than any xiw computes is DDP's "message too
    # long"; a response must answer an outstanding Verify.
    "verify_unknown_stag": (untagged(0xE, 1, 1, body=struct.pack(
        ">IIQ", 0xDEAD0100, 8, 0)), term(0, 1, 0x00), True),
    "verify_hash_too_long": (untagged(0xE, 1, 1, body=struct.pack(
        ">IIQ", 0xDEAD0100, 8, 0) + b"h" * 65), term(1, 2, 0x05), True),
    "verify_response_without_request": (untagged(0xF, 3, 1, body=b"h" * 4),
                                        term(0, 2, 0x06), True),
    "rdmap_version_2": (_rv2(untagged(3, 0, 1, body=b"hi")),
                        term(0, 2, 0x05), False),
    # RFC 7306: the draft's Swap (1) is no AOpCode of the RFC's; a target
    # offset not 64-bit aligned is section 8.2's catastrophic error; a bad
    # STag is a remote protection error, with the DDP header but no RDMAP
    # header (section 8.1). An Atomic Response with none outstanding is
    # unexpected.
    "atomic_swap_aopcode": (untagged(0xA, 1, 1, body=atomic_request(
        1, 0xDEAD0100, 0)), term(0, 2, 0x06), True),
    "atomic_unaligned": (untagged(0xA, 1, 1, body=atomic_request(
        0, 0xDEAD0100, 4)), term(0, 2, 0x07), True),
    "atomic_unknown_stag": (untagged(0xA, 1, 1, body=atomic_request(
        0, 0xDEAD0100, 0)), term(0, 1, 0x00), True),
    "atomic_response_without_request": (
        untagged(0xB, 3, 1, body=struct.pack(">IQ", 7, 42)),
        term(0, 2, 0x06), True),
    "atomic_request_with_payload": (untagged(0xA, 1, 1, body=atomic_request(
        0, 0xDEAD0100, 0) + b"more"), term(1, 2, 0x05), True),
    # RDMA Flush (commit draft section 3.1.1): a disposition (0x01, 0x02)
    # and xiw's whole-region flag (0x04) only, else the same catastrophic
    # error as a malformed atomic; then the STag; its response must answer
    # an outstanding Flush.
    "flush_without_disposition": (untagged(0xC, 1, 1, body=flush(
        0xDEAD0100, 0)), term(0, 2, 0x07), True),
    "flush_unknown_flag": (untagged(0xC, 1, 1, body=flush(
        0xDEAD0100, 0x09)), term(0, 2, 0x07), True),
    "flush_unknown_stag": (untagged(0xC, 1, 1, body=flush(
        0xDEAD0100, 0x01)), term(0, 1, 0x00), True),
    "flush_response_without_request": (untagged(0xD, 3, 1),
                                       term(0, 2, 0x06), True),
    # Atomic Write (commit draft section 3.1.3): 8 octets at an aligned
    # offset, or section 8.2 of RFC 7306's catastrophic error before any
    # lookup; a bad STag is a remote protection error; its response has
    # no identifier and must answer an outstanding Atomic Write.
    "atomic_write_unaligned": (untagged(0x10, 1, 1, body=atomic_write(
        0xDEAD0100, 4)), term(0, 2, 0x07), True),
    "atomic_write_length_not_8": (untagged(0x10, 1, 1, body=atomic_write(
        0xDEAD0100, 0, length=4)), term(0, 2, 0x07), True),
    "atomic_write_unknown_stag": (untagged(0x10, 1, 1, body=atomic_write(
        0xDEAD0100, 0)), term(0, 1, 0x00), True),
    "atomic_write_with_payload": (untagged(0x10, 1, 1, body=atomic_write(
        0xDEAD0100, 0) + b"more"), term(1, 2, 0x05), True),
    "atomic_write_response_without_request": (untagged(0x11, 3, 1),
                                              term(0, 2, 0x06), True),
    # Immediate Data carries exactly 8 octets (RFC 7306 section 6.3) and
    # takes a receive like a Send (the server here posted none).
    "immediate_data_short": (untagged(8, 0, 1, body=b"1234"),
                             term(0, 2, 0x07), True),
    "immediate_data_long": (untagged(8, 0, 1, body=b"123456789"),
                            term(1, 2, 0x05), True),
    "immediate_data_without_receive": (untagged(9, 0, 1, body=b"12345678"),
                                       term(1, 2, 0x02), True),
}


@pytest.mark.parametrize("case", CASES)
def test_each_bad_segment_gets_its_terminate(peer, case):
    seg, ctrl_want, headers = CASES[case]
    ctrl, rest = the_terminate(exchange(peer, seg))
    if headers:
        hdr = 14 if seg[0] & 0x80 else 18
        assert ctrl == ctrl_want | M | D, hex(ctrl)
        assert rest == struct.pack(">H", len(seg)) + seg[:hdr], rest.hex()
    else:
        # Found in the control octets: no header is complete to include.
        assert ctrl == ctrl_want, hex(ctrl)
        assert rest == b"", rest.hex()


# The event the QP that found the fault raises, by the fault's class: a
# tagged buffer or protection fault is an access error, a malformed or
# unexpected request an invalid request (see Documentation/conformance.md).
EVENT_CASES = {"invalid_qn": "qp_req_err", "reserved_opcode": "qp_req_err",
               "atomic_unaligned": "qp_req_err",
               "atomic_unknown_stag": "qp_access_err",
               "atomic_write_length_not_8": "qp_req_err"}


def test_the_qp_that_finds_a_fault_raises_the_event_of_its_class(peer):
    """Against a server of its own (port 18516), whose counters say which
    asynchronous events its QPs raised: a Write to an unknown STag and
    the cases of EVENT_CASES, one connection each."""
    log = start_server(peer, "b", SERVER, "events", port=18516,
                       json_out=True)
    try:
        ctrl, _ = the_terminate(exchange(
            peer, tagged(0, 0xDEAD0100, 0, b"abcd"), port=18516))
        assert ctrl >> 24 & 0xff == 0x11, hex(ctrl)     # DDP tagged
        for case in EVENT_CASES:
            the_terminate(exchange(peer, CASES[case][0], port=18516))
    finally:
        srv = stop_server(peer, log)
    want = {"qp_fatal": 0, "qp_req_err": 0, "qp_access_err": 1, "cq_err": 0}
    for event in EVENT_CASES.values():
        want[event] += 1
    assert srv and srv["async_events"] == want, srv


def send_hello(size):
    """An xiwperf Send test of `size`-octet messages: the server posts
    receives of that size."""
    return struct.pack(">IHBBIIQII", 0x58505246, 1, 1, 0, size, 1, 1, 0, 0)


def test_send_longer_than_the_receive_is_message_too_long(peer):
    """A Send test connection of 1-octet messages posts 1-octet receives."""
    seg = untagged(3, 0, 1, body=b"too long")
    ctrl, rest = the_terminate(exchange(peer, seg, hello=send_hello(1)))
    assert ctrl == term(1, 2, 0x05) | M | D, hex(ctrl)
    assert rest == struct.pack(">H", len(seg)) + seg[:18], rest.hex()


# A legitimate 600-octet Send (its FPDU crosses a 512-octet marker
# boundary), then a segment for a queue that does not exist. If the first
# FPDU passes MPA's checks, the second draws a DDP "invalid QN" Terminate:
# that is the control case for each MPA fault below.
VALID_SEND = untagged(3, 0, 1, body=bytes(range(256)) * 2 + b"m" * 88)
BAD_QN = untagged(3, 5, 1, body=b"hi")


def assert_mpa_fault(peer, corrupt, code):
    """The legitimate Send, then the bad-QN segment, framed by mpa_peer
    with its CRC or marker `corrupt`ed (None: all correct)."""
    ctrl, rest = the_terminate(exchange(peer, VALID_SEND, BAD_QN,
                                        hello=send_hello(600),
                                        corrupt=corrupt))
    if corrupt:
        # LLP, MPA (RFC 6581 section 8): control field only.
        assert ctrl == term(2, 0, code), hex(ctrl)
        assert rest == b"", rest.hex()
    else:
        assert ctrl == term(1, 2, 0x01) | M | D, hex(ctrl)


@pytest.fixture
def crc_peer(pair):
    set_params(pair, crc_policy="required")
    yield pair
    set_params(pair, crc_policy="preferred")


@pytest.mark.parametrize("corrupt", [None, "crc"],
                         ids=["good_crc", "bad_crc"])
def test_fpdu_with_bad_crc_terminates_with_mpa_crc_error(crc_peer, corrupt):
    """xiw requires CRC, so its Reply turns it on; the peer signs each
    FPDU (RFC 5044 CRC32c), wrongly for the first one when corrupt. The
    device counts the bad CRC and the Terminate it sent."""
    before = hw_counters(crc_peer, "xiw1")
    assert_mpa_fault(crc_peer, corrupt, 0x02)      # CRC error
    n = counted(before, hw_counters(crc_peer, "xiw1"))
    assert n["crc_errors"] == (1 if corrupt else 0), n
    assert n["terminates_sent"] == 1 and n["terminates_received"] == 0, n


@pytest.fixture(params=["off", "required"], ids=["crc_off", "crc_on"])
def marker_peer(pair, request):
    """xiw asking for markers, with CRC off or required: with CRC, the
    peer's CRCs cover its markers."""
    set_params(pair, markers="Y", crc_policy=request.param)
    yield pair
    set_params(pair, markers="N", crc_policy="preferred")


@pytest.mark.parametrize("corrupt", [None, "marker:0", "marker:1"],
                         ids=["good_markers", "bad_leading_marker",
                              "bad_marker_inside_an_fpdu"])
def test_marker_not_pointing_at_its_fpdu_terminates_with_mpa_marker_error(
        marker_peer, corrupt):
    """xiw asks for markers (markers=Y), so the peer puts one every 512
    octets: marker 0 leads the Send's FPDU, marker 1 falls inside it.
    A wrong FPDUPTR in either is an MPA marker error."""
    assert_mpa_fault(marker_peer, corrupt, 0x03)   # marker error
