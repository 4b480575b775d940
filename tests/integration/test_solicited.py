"""Solicited-only CQ notification over xiw, xiw <-> xiw between two
namespaces: xiwperf --solicit N marks every Nth Send (and the last one, and
any taking the client's last credit) with the Solicited Event flag; the
server takes those receives on a CQ armed with IB_CQ_SOLICITED, polls it
only when notified, and reports its notifications in the verdict."""
from xiwperf_run import client


def solicited_send(vm, *args):
    """A verified --solicit Send run from a to b; its JSON result."""
    rc, r = client(vm, "a", "192.0.2.2", "--op", "send", "--check", *args)
    assert r["device"] == "xiw0"
    assert r["errors"] == 0 and r["mismatches"] == 0, r
    return r


def test_unsolicited_sends_do_not_wake_the_server(pair):
    """Only the last of 16 Sends is solicited (the server grants 32
    credits, so none takes the last one): the CQ stays quiet through the
    first 15, and the one wake-up finds all 16 messages."""
    count = 16
    r = solicited_send(pair, "--size", 65536, "--count", count, "--depth", 16,
                       "--solicit", count)
    assert r["completed"] == count, r
    assert r["solicit"] == count
    assert r["solicited"] == 1, r
    assert r["notifications"] == 1, r
    assert r["first_batch"] == count, r


def test_every_fourth_send_solicited_over_several_qps(pair):
    """Every 4th Send solicited, 4 QPs of 16 Sends each at depth 2 (4
    credits per connection, so the client keeps running out and solicits
    the Send taking its last credit): every connection is woken (its
    first wake-up processed at least one message), never more often than
    it was solicited, and every message arrives intact."""
    count, qps = 64, 4
    r = solicited_send(pair, "--size", 4096, "--count", count, "--depth", 2,
                       "--qps", qps, "--solicit", 4)
    assert r["completed"] == count, r
    assert r["data_ok"] is True, r
    # Every 4th, and each connection's last, at the least.
    assert r["solicited"] >= count // 4, r
    assert r["solicited"] <= count, r
    assert qps <= r["notifications"] <= r["solicited"], r
    assert r["first_batch"] >= 1, r
