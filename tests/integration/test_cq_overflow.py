"""A completion queue that overflows ends only the streams whose
completions it loses (RFC 5040 section 8.1.1, item 10), xiw <-> xiw between
two namespaces.

xiwperf --inject cq-overflow: the server gives connection 0 a
solicited-only receive CQ with room for one completion and polls it only
when a solicited Send arrives; the client solicits every 8th Send, so the
second one overflows it. The server's xiw must raise IB_EVENT_CQ_ERR on
that CQ and IB_EVENT_QP_FATAL on connection 0's QP, and end that stream
alone with a Terminate for a local catastrophic error; the client's QP gets
IB_EVENT_QP_FATAL when the Terminate arrives. The other connections, on
the same devices at the same time, must carry out every Send and deliver
their verdicts with every byte checked.
"""
from capture import capture, tshark
from xiwperf_run import (client, start_server, stop_server,
                         wait_resources_released)

SERVER = "192.0.2.2"
PORT = 18516                    # a server of this test's own: its counters
QPS, PER_QP = 4, 100


def test_overflow_ends_only_the_stream_whose_completion_was_lost(pair):
    vm = pair
    log = start_server(vm, "b", SERVER, "cq-overflow", port=PORT,
                       json_out=True)
    got = {}
    pcap = "/tmp/cq-overflow.pcapng"

    def run():
        got["rc"], got["r"] = client(
            vm, "a", SERVER, "--op", "send", "--size", 4096, "--check",
            "--count", QPS * PER_QP, "--qps", QPS, "--depth", 4,
            "--solicit", 8, "--inject", "cq-overflow", check=False,
            port=PORT)
    try:
        capture(vm, "a", "v0", run, pcap, port=PORT)
    finally:
        srv = stop_server(vm, log)
    rc, r = got["rc"], got["r"]

    # Connection 0 failed, from its own end, not a timeout...
    assert rc == 1, r
    assert r["conns_failed"] == 1, r
    assert "no progress" not in r["error"], r
    # ...and every other connection sent everything, checked by the server.
    assert r["completed"] >= (QPS - 1) * PER_QP, r
    assert r["mismatches"] == 0, r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
    assert r["async_events"] == {"qp_fatal": 1, "qp_req_err": 0,
                                 "qp_access_err": 0, "cq_err": 0}, r

    # The server's device: one overflowed CQ, one fatal QP, nothing else.
    assert srv and srv["event"] == "stopped", srv
    assert srv["connections"] == QPS and srv["mismatches"] == 0, srv
    assert srv["async_events"] == {"qp_fatal": 1, "qp_req_err": 0,
                                   "qp_access_err": 0, "cq_err": 1}, srv

    # One Terminate, from the server, RDMAP local catastrophic, on one of
    # the four streams.
    out = tshark(vm, pcap, "-Y", "iwarp_rdma.opcode == 7", "-T", "fields",
                 "-e", "ip.src", "-e", "tcp.stream",
                 "-e", "iwarp_rdma.term_layer",
                 "-e", "iwarp_rdma.term_etype_rdma")
    terms = [line.split("\t") for line in out.splitlines()]
    assert terms == [[SERVER, terms[0][1], "0x00", "0x00"]], out
    streams = tshark(vm, pcap, "-Y", "iwarp_ddp", "-T", "fields",
                     "-e", "tcp.stream").split()
    assert len(set(streams)) == QPS, sorted(set(streams))

    wait_resources_released(vm, {"xiw1": 1})
