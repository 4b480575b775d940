"""Shared receive queues over xiw, xiw <-> xiw between two namespaces.

xiwperf --srq: the server puts every connection of one client run (the
run id in the connect request) on one SRQ, grants credits only for
receives it has posted there (so no client ever sends into an empty SRQ,
which iWARP answers with a Terminate), and arms the SRQ's limit.

Arms and crossings, as the server counts them (Documentation/xiwperf.md,
"Shared receive queue"): an *arm* is an ib_modify_srq(IB_SRQ_LIMIT = L),
made only while at least L posted receives are beyond every client's
credits. While an arm is pending the server reposts nothing, so the SRQ's
fill level only falls; the server counts it as receives posted minus
receives completed, never below the device's own count. An arm is
*crossed* when that count falls below L; the server then reposts what it
held and arms again. An arm still pending at the end of the run was not
crossed (the count is exact then). The crossed arms are exactly those for
which the device must raise IB_EVENT_SRQ_LIMIT_REACHED, once each: so
srq_limit_events == srq_crossed, no event arrives while no arm is pending
(srq_stray_events == 0), and only the last arm may be uncrossed.
"""
from xiwperf_run import (client, start_client, wait_client,
                         wait_resources_released)

SERVER = "192.0.2.2"


def srq_send(vm, *args):
    """A verified --srq Send run from a to b; its JSON result."""
    rc, r = client(vm, "a", SERVER, "--op", "send", "--check", "--srq", *args)
    assert r["device"] == "xiw0" and r["srq"] is True, r
    return r


def assert_events_match_crossed_arms(r):
    assert r["srq_limit_events"] == r["srq_crossed"], r
    assert r["srq_stray_events"] == 0, r
    assert r["srq_arms"] - r["srq_crossed"] in (0, 1), r


def test_eight_qps_on_one_srq_deliver_every_message_intact(pair):
    """8 connections, 2 credits' worth of receives each in one SRQ of 32:
    the credits keep every Send within what is posted, whichever
    connection takes which receive."""
    r = srq_send(pair, "--size", 4096, "--count", 4000, "--depth", 2,
                 "--qps", 8)
    assert r["completed"] == 4000 and r["bytes"] == 4000 * 4096, r
    assert r["errors"] == 0 and r["mismatches"] == 0, r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r


def test_every_crossed_arm_raises_exactly_one_limit_event(pair):
    r = srq_send(pair, "--size", 4096, "--count", 4000, "--depth", 2,
                 "--qps", 8)
    assert r["srq_limit_events"] >= 1, r
    assert_events_match_crossed_arms(r)


def test_an_arm_never_crossed_raises_no_event(pair):
    """8 messages, one per connection, against an SRQ of 256 receives
    armed at 64: the one arm stays pending, and the device stays quiet."""
    r = srq_send(pair, "--size", 4096, "--count", 8, "--depth", 16,
                 "--qps", 8)
    assert r["completed"] == 8, r
    assert (r["srq_arms"], r["srq_crossed"]) == (1, 0), r
    assert r["srq_limit_events"] == 0 and r["srq_stray_events"] == 0, r


def test_two_runs_at_once_get_an_srq_each(pair):
    """Connections are grouped by run: two concurrent runs of 4 QPs each
    have their own SRQ, credits and counts."""
    args = ("--op", "send", "--size", 4096, "--count", 2000, "--depth", 2,
            "--qps", 4, "--check", "--srq")
    outs = [start_client(pair, "a", SERVER, f"srq{i}", *args)
            for i in range(2)]
    for out in outs:
        rc, r = wait_client(pair, out)
        assert rc == 0, r
        assert r["completed"] == 2000 and r["data_ok"] is True, r
        assert_events_match_crossed_arms(r)


def test_srq_is_released_with_its_last_connection(pair):
    srq_send(pair, "--size", 65536, "--count", 64, "--depth", 4, "--qps", 4)
    wait_resources_released(pair, {"xiw1": 1})
