"""xiw's tracepoints (the "xiw" trace system, Documentation/admin.md):
endpoint state changes, Terminates, and the requests of queue 1, each
seen in the trace of a run that makes them happen.

The events are enabled while nothing runs on the devices and stay on
(see cm_trace.py: under multi-threaded TCG, live-patching kernel text
that another vCPU runs can leave it a stale int3)."""
import cm_trace
from cm_trace import TRACING
from xiwperf_run import client

SERVER = "192.0.2.2"


def trace(vm, fn, until):
    """fn() with the xiw events recorded; the trace's lines once until()
    holds of them (the server's side may finish just after fn returns;
    a bounded number of guest round trips)."""
    cm_trace.start(vm, "xiw")
    fn()
    for _ in range(50):
        lines = [ln for ln in vm.run(f"cat {TRACING}/trace").out.splitlines()
                 if " xiw_" in ln]
        if until(lines):
            break
        vm.run("sleep 0.1")
    return [ln for ln in cm_trace.read_and_clear(vm).splitlines()
            if " xiw_" in ln]


def test_states_and_requests_of_a_run_are_traced(pair):
    """A Read and a Flush run: each endpoint of both devices goes to rts
    and ends closed; every request is traced as sent by xiw0 and received
    by xiw1: 8 Flush Requests, and at least 8 Read Requests (the Flush
    run's --check reads back too)."""
    vm = pair
    vm.run("echo 1 > /sys/module/xiw/parameters/dram_persistent")

    def runs():
        client(vm, "a", SERVER, "--op", "read", "--size", 4096,
               "--count", 8, "--check")
        client(vm, "a", SERVER, "--op", "flush", "--size", 4096,
               "--count", 8, "--remote-mr", "frwr", "--persist", "--check")
    def closed(lines):
        return sum(ln.endswith("-> closed") for ln in lines) >= 4
    lines = trace(vm, runs, closed)
    states = [ln for ln in lines if "xiw_cep_state:" in ln]
    for dev, side in (("xiw0", "active"), ("xiw1", "passive")):
        mine = [ln for ln in states if f" {dev} cep " in ln]
        assert any(f"{side} await_accept -> rts" in ln or
                   f"{side} await_reply -> rts" in ln for ln in mine), mine
        assert any(ln.endswith("-> closed") for ln in mine), mine
    requests = [ln for ln in lines if "xiw_request:" in ln]
    for dev, way in (("xiw0", "sent"), ("xiw1", "received")):
        n = {op: sum(f" {dev} qp " in ln and f" {way} {op} " in ln
                     for ln in requests) for op in ("read_req", "flush_req")}
        assert n["flush_req"] == 8 and n["read_req"] >= 8, (dev, n)
    # each with its STag, offset and length: 4 KiB
    assert all(ln.endswith(" len 4096") for ln in requests
               if "flush_req" in ln), requests


def test_a_terminate_is_traced_at_both_ends(pair):
    vm = pair
    lines = trace(vm, lambda: client(
        vm, "a", SERVER, "--op", "write", "--size", 4096, "--count", 1,
        "--inject", "stag", check=False),
        lambda lines: sum("xiw_terminate:" in ln for ln in lines) >= 2)
    terms = [ln.split("xiw_terminate: ")[1] for ln in lines
             if "xiw_terminate:" in ln]
    assert sorted(t.split(" qp ")[0] + " " + t.split(" ", 3)[3]
                  for t in terms) == [
        "xiw0 received layer 1 type 1 code 0x00",
        "xiw1 sent layer 1 type 1 code 0x00"], terms
