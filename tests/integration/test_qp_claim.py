"""A connection takes only an idle QP of its caller's (kmod/qp.c,
xiw_qp_claim()).

iw_cm takes the QP of a connect or an accept by the number its caller
gives, and the RDMA CM's user command passes a process's number as it is
(rdma_connect() and rdma_accept() of an id without a QP:
conn_param.qp_num); any process may open /dev/infiniband/rdma_cm. Before
xiw checked, any process could name any QP of the device: a connected one
was torn down when the new connection failed (and the endpoint it had
lost hung `rdma link delete`), an idle one of another user's was taken
over. tests/userspace/qp_claim.c (build/cmake/tests/userspace/xiw_qp_claim)
plays every part, through xiw's provider.

xiw0 on v0 in a (192.0.2.1), xiw1 on v1 in b (192.0.2.2).
"""
import json
import os

from conftest import TOP, wait_until
from test_userspace_verbs import ENV, user  # noqa: F401

CLAIM = os.path.join(TOP, "build", "cmake", "tests", "userspace",
                     "xiw_qp_claim")
NOBODY = "setpriv --reuid=65534 --regid=65534 --clear-groups "
EBUSY, EPERM = 16, 1


def start(vm, ns, args, out):
    """xiw_qp_claim ARGS in ns, in the background: its output in out, its
    exit status in out.rc (both new: /tmp outlives a test)."""
    vm.run(f"rm -f {out} {out}.rc /tmp/go; (ip netns exec {ns} env {ENV}{CLAIM} {args} > {out} 2>&1; "
           f"echo $? > {out}.rc) > /dev/null 2>&1 &")


def serve(vm, port):
    """The server in b: accepts one connection, receives one message."""
    start(vm, "b", f"serve 192.0.2.2 {port}", "/tmp/serve.out")
    wait_until(vm, f"ip netns exec b ss -ltn | grep -q ':{port} '",
               "the server listens")


def hold(vm, port, go):
    """A holder in a with a QP of its own (connected to the server unless
    go starts with "idle:"); its QP number."""
    start(vm, "a", f"hold 192.0.2.2 {port} {go}", "/tmp/hold.out")
    wait_until(vm, "grep -q qpn /tmp/hold.out", "the holder's QP")
    return json.loads(vm.run("head -n1 /tmp/hold.out").out)["qpn"]


def name(vm, ns, how, args, prefix=""):
    """xiw_qp_claim connect|accept ... in ns; its JSON line."""
    res = vm.run(f"ip netns exec {ns} {prefix}env {ENV}{CLAIM} {how} {args}",
                 timeout=60, check=False)
    assert res.rc == 0, res
    return json.loads(res.out.splitlines()[-1])


def ends_well(vm):
    """The holder's message reached the server: both exit 0."""
    vm.run("touch /tmp/go")
    wait_until(vm, "test -s /tmp/hold.out.rc && test -s /tmp/serve.out.rc",
               "the holder and the server ended")
    out = vm.run("cat /tmp/hold.out /tmp/hold.out.rc /tmp/serve.out "
                 "/tmp/serve.out.rc").out
    assert vm.run("cat /tmp/hold.out.rc").out.strip() == "0", out
    assert vm.run("cat /tmp/serve.out.rc").out.strip() == "0", out
    assert '"received": 64' in out, out


def test_a_connect_naming_a_connected_qp_is_refused_and_changes_nothing(
        user):
    """Root names a connected QP (its own user's) in a connect to a port
    where nothing listens: refused with EBUSY at once, and the QP's
    connection carries its message afterwards. Before the check the
    failed connect flushed that QP to error and leaked its endpoint."""
    vm = user
    serve(vm, 7471)
    qpn = hold(vm, 7471, "/tmp/go")
    r = name(vm, "a", "connect", f"192.0.2.2 7479 {qpn}")
    assert r["connect"] == EBUSY, r
    ends_well(vm)


def test_a_connect_naming_another_users_idle_qp_is_refused(user):
    """uid 65534 names root's idle QP in a connect to root's listening
    server: refused with EPERM, and root's QP then connects and carries
    its message. Before the check the connection went up on root's QP."""
    vm = user
    serve(vm, 7472)
    qpn = hold(vm, 7472, "idle:/tmp/go")
    r = name(vm, "a", "connect", f"192.0.2.2 7472 {qpn}", prefix=NOBODY)
    assert r["connect"] == EPERM, r
    ends_well(vm)


def test_an_accept_naming_another_users_idle_qp_is_refused(user):
    """uid 65534 accepts a request from b naming root's idle QP: refused
    with EPERM (and the request refused on the wire), root's QP untouched:
    it connects and carries its message afterwards."""
    vm = user
    serve(vm, 7473)
    qpn = hold(vm, 7473, "idle:/tmp/go")
    vm.run(f"rm -f /tmp/thief.out /tmp/thief.rc; (ip netns exec a {NOBODY}"
           f"env {ENV}{CLAIM} accept 192.0.2.1 7474 {qpn} > /tmp/thief.out "
           "2>&1; echo $? > /tmp/thief.rc) > /dev/null 2>&1 &")
    wait_until(vm, "ip netns exec a ss -ltn | grep -q ':7474 '",
               "the thief listens")
    peer = vm.run(f"ip netns exec b env {ENV}timeout 30 rping -c "
                  "-a 192.0.2.1 -p 7474 -C 1", timeout=60, check=False)
    assert peer.rc != 0, peer
    wait_until(vm, "test -s /tmp/thief.rc", "the thief ended")
    r = json.loads(vm.run("tail -n1 /tmp/thief.out").out)
    assert r["accept"] == EPERM, r
    ends_well(vm)
