// SPDX-License-Identifier: GPL-2.0
/*
 * Connection manager: the iw_cm provider.
 *
 * Every socket lives in the network namespace of the device's netdev,
 * whichever task or worker called in. Listening sockets are in listen.c;
 * the endpoints' insides it shares with this file are in cep.h.
 *
 * A connection endpoint (cep) runs the MPA handshake in process context:
 * socket callbacks only record what happened and queue the cep's work.
 * Once the handshake is done the socket's data-ready callback feeds the
 * QP's receive engine directly.
 */
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/iw_cm.h>

#include "cep.h"
#include "cm.h"
#include "mpa.h"
#include "obj.h"
#include "policy.h"
#include "trace.h"

/* Runs the endpoints' and the listeners' work (xiw_cm_init()). */
struct workqueue_struct *xiw_cm_wq;

static const char * const xiw_cep_state_names[] = {
	[XIW_CEP_NEW] = "new",
	[XIW_CEP_CONNECTING] = "connecting",
	[XIW_CEP_AWAIT_REPLY] = "await_reply",
	[XIW_CEP_AWAIT_REQUEST] = "await_request",
	[XIW_CEP_AWAIT_ACCEPT] = "await_accept",
	[XIW_CEP_RTS] = "rts",
	[XIW_CEP_CLOSING] = "closing",
	[XIW_CEP_LINGER] = "linger",
	[XIW_CEP_CLOSED] = "closed",
};

static const char * const xiw_iw_event_names[] = {
	[IW_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
	[IW_CM_EVENT_CONNECT_REPLY] = "CONNECT_REPLY",
	[IW_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
	[IW_CM_EVENT_DISCONNECT] = "DISCONNECT",
	[IW_CM_EVENT_CLOSE] = "CLOSE",
};

/*
 * Connection requests handed to iw_cm, by handle: iw_cm's provider_data
 * is the handle, not the endpoint. iw_cm can lose a CONNECT_REQUEST it
 * took (the listen is being destroyed, or it could not create the
 * connection's id) without telling the provider, and a ULP may never
 * answer, so nobody may be counted on to call accept or reject. Whoever
 * takes an endpoint out of this table (accept, reject, or the endpoint's
 * own end: timeout, peer gone, device gone) owns the reference the entry
 * held; an accept or reject that comes later finds nothing. The xarray's
 * lock protects it; @xiw_request_next is its allocation cursor.
 */
static DEFINE_XARRAY_ALLOC1(xiw_requests);
static u32 xiw_request_next;

static void xiw_cep_free(struct kref *ref)
{
	struct xiw_cep *cep = container_of(ref, struct xiw_cep, ref);
	struct xiw_device *xdev = cep->xdev;

	WARN_ON_ONCE(cep->sock || cep->cm_id || cep->qp);
	/* Woken under the lock: a waiter sees the list empty only after. */
	spin_lock_bh(&xdev->ceps_lock);
	list_del(&cep->node);
	wake_up(&xdev->ceps_gone);
	spin_unlock_bh(&xdev->ceps_lock);
	kfree(cep);
}

/**
 * xiw_cep_get() - take a reference on a connection endpoint
 * @cep: the endpoint
 */
void xiw_cep_get(struct xiw_cep *cep)
{
	kref_get(&cep->ref);
}

/**
 * xiw_cep_put() - drop a reference on a connection endpoint
 * @cep: the endpoint
 */
void xiw_cep_put(struct xiw_cep *cep)
{
	kref_put(&cep->ref, xiw_cep_free);
}

/* Enter @cep in xiw_requests; the entry holds a reference. */
static int xiw_cep_publish(struct xiw_cep *cep)
{
	int err;

	kref_get(&cep->ref);
	err = xa_alloc_cyclic(&xiw_requests, &cep->request, cep, xa_limit_32b,
			      &xiw_request_next, GFP_KERNEL);
	if (err < 0) {
		cep->request = 0;
		xiw_cep_put(cep);
		return err;
	}
	return 0;
}

/*
 * Take @cep out of xiw_requests if it is still there and drop the entry's
 * reference. The caller holds a reference of its own.
 */
static void xiw_cep_withdraw(struct xiw_cep *cep)
{
	if (cep->request &&
	    xa_cmpxchg(&xiw_requests, cep->request, cep, NULL, 0) == cep)
		xiw_cep_put(cep);
}

/*
 * The endpoint of the request that iw_cm's @id names, taken out of
 * xiw_requests with the entry's reference, or NULL when it is not pending
 * any more (timed out, its peer or its device gone).
 */
static struct xiw_cep *xiw_request_take(struct iw_cm_id *id)
{
	unsigned long handle = (unsigned long)id->provider_data;
	struct xiw_cep *cep;

	if (!handle || handle > U32_MAX)
		return NULL;
	xa_lock(&xiw_requests);
	cep = xa_load(&xiw_requests, handle);
	if (cep && cep->xdev == to_xiw_dev(id->device))
		__xa_erase(&xiw_requests, handle);
	else
		cep = NULL;
	xa_unlock(&xiw_requests);
	return cep;
}

/**
 * xiw_cep_event() - record an event and queue the endpoint's work for it
 * @cep: the endpoint
 * @bit: the event, an XIW_CEP_EV_* bit
 *
 * Any context: socket callbacks call it in softirq context. The queued
 * work holds a reference on @cep until it has run.
 */
void xiw_cep_event(struct xiw_cep *cep, int bit)
{
	set_bit(bit, &cep->events);
	kref_get(&cep->ref);
	if (!queue_work(xiw_cm_wq, &cep->work))
		xiw_cep_put(cep);
}

static void xiw_cep_timer_fn(struct work_struct *w)
{
	struct xiw_cep *cep = container_of(to_delayed_work(w), struct xiw_cep,
					   timer);

	xiw_cep_event(cep, XIW_CEP_EV_TIMEOUT);
	xiw_cep_put(cep);	/* the timer's reference */
}

/**
 * xiw_cep_arm() - (re)start the timer that bounds the current handshake
 *	or close step
 * @cep: the endpoint
 *
 * When mpa_timeout_ms pass first, the work sees XIW_CEP_EV_TIMEOUT. The
 * pending timer holds a reference on @cep. Called with @cep->lock held.
 */
void xiw_cep_arm(struct xiw_cep *cep)
{
	kref_get(&cep->ref);
	if (!mod_delayed_work(xiw_cm_wq, &cep->timer,
			      msecs_to_jiffies(xiw_policy_timeout_ms())))
		return;
	xiw_cep_put(cep);	/* was already pending: keep one reference */
}

static void xiw_cep_disarm(struct xiw_cep *cep)
{
	if (cancel_delayed_work(&cep->timer))
		xiw_cep_put(cep);
}

static void xiw_cep_work(struct work_struct *w);

/**
 * xiw_cep_set_state() - move an endpoint to another state
 * @cep: the endpoint
 * @to: its new state
 *
 * Every change of an endpoint's state goes through here (tracepoint).
 * Called with @cep->lock held, or before anyone else can reach @cep
 * (its socket's callbacks, its work, iw_cm).
 */
void xiw_cep_set_state(struct xiw_cep *cep, enum xiw_cep_state to)
{
	trace_xiw_cep_state(dev_name(&cep->xdev->ibdev.dev), cep, cep->active,
			    xiw_cep_state_names[cep->state],
			    xiw_cep_state_names[to]);
	cep->state = to;
}

/**
 * xiw_cep_alloc() - make a connection endpoint, in XIW_CEP_NEW, on its
 *	device's list of endpoints
 * @xdev: the device
 * @active: this end connects (initiator)
 *
 * Process context. The caller holds the only reference.
 *
 * Return: the endpoint, or NULL when out of memory.
 */
struct xiw_cep *xiw_cep_alloc(struct xiw_device *xdev, bool active)
{
	struct xiw_cep *cep = kzalloc(sizeof(*cep), GFP_KERNEL);

	if (!cep)
		return NULL;
	kref_init(&cep->ref);
	mutex_init(&cep->lock);
	INIT_WORK(&cep->work, xiw_cep_work);
	INIT_DELAYED_WORK(&cep->timer, xiw_cep_timer_fn);
	cep->xdev = xdev;
	cep->active = active;
	xiw_device_conn_policy(xdev, &cep->pol);
	spin_lock_bh(&xdev->ceps_lock);
	list_add_tail(&cep->node, &xdev->ceps);
	spin_unlock_bh(&xdev->ceps_lock);
	return cep;
}

/* -- socket callbacks (softirq or process context) ---------------------- */

static void xiw_sk_data_ready(struct sock *sk)
{
	struct xiw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep) {
		if (cep->rdma_mode)
			xiw_rx_data_ready(cep->qp);
		else
			xiw_cep_event(cep, XIW_CEP_EV_DATA);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void xiw_sk_state_change(struct sock *sk)
{
	struct xiw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep) {
		xiw_cep_event(cep, XIW_CEP_EV_STATE);
		cep->saved_state_change(sk);	/* wakes blocked senders */
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void xiw_sk_write_space(struct sock *sk)
{
	struct xiw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep) {
		/* First: it clears SOCK_NOSPACE, which the QP may want set. */
		cep->saved_write_space(sk);
		if (cep->rdma_mode)
			xiw_tx_write_space(cep->qp, sk);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/**
 * xiw_cep_attach() - take over the socket's callbacks for the endpoint
 * @cep: the endpoint, with its socket
 *
 * From now on the socket's data-ready, state-change and write-space
 * callbacks record events for @cep (or feed its QP, once in RDMA mode);
 * the socket holds a reference on @cep until xiw_cep_detach(). Called
 * with @cep->lock held.
 */
void xiw_cep_attach(struct xiw_cep *cep)
{
	struct sock *sk = cep->sock->sk;

	kref_get(&cep->ref);	/* for sk_user_data */
	write_lock_bh(&sk->sk_callback_lock);
	cep->saved_data_ready = sk->sk_data_ready;
	cep->saved_state_change = sk->sk_state_change;
	cep->saved_write_space = sk->sk_write_space;
	sk->sk_user_data = cep;
	sk->sk_data_ready = xiw_sk_data_ready;
	sk->sk_state_change = xiw_sk_state_change;
	sk->sk_write_space = xiw_sk_write_space;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* The caller holds another reference on @cep. */
static void xiw_cep_detach(struct xiw_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	bool was = false;

	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == cep) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = cep->saved_data_ready;
		sk->sk_state_change = cep->saved_state_change;
		sk->sk_write_space = cep->saved_write_space;
		was = true;
	}
	cep->rdma_mode = false;
	write_unlock_bh(&sk->sk_callback_lock);
	if (was)
		xiw_cep_put(cep);
}

/* Close the socket: abortively (RST) or after a FIN already sent. */
static void xiw_cep_release_sock(struct xiw_cep *cep, bool abort)
{
	if (!cep->sock)
		return;
	xiw_cep_detach(cep);
	if (abort)
		sock_no_linger(cep->sock->sk);
	else
		kernel_sock_shutdown(cep->sock, SHUT_RDWR);
	sock_release(cep->sock);
	cep->sock = NULL;
}

/* -- events to iw_cm ------------------------------------------------------ */

static void xiw_cep_addrs(struct xiw_cep *cep, struct iw_cm_event *ev)
{
	if (!cep->sock)
		return;
	kernel_getsockname(cep->sock, (struct sockaddr *)&ev->local_addr);
	kernel_getpeername(cep->sock, (struct sockaddr *)&ev->remote_addr);
}

/*
 * Hand an event to iw_cm. Return: what its handler returned: 0, or for a
 * CONNECT_REQUEST an error when iw_cm refuses it (-ENOMEM: the listen's
 * backlog of work entries is used up, or no memory for the private data).
 */
static int xiw_cep_deliver(struct xiw_cep *cep, struct iw_cm_id *id,
			   enum iw_cm_event_type type, int status,
			   const void *pd, u8 pd_len)
{
	/*
	 * The peer's IRD and ORD as it sent them: rdma_cm hands them to the
	 * ULP as initiator_depth (what our ORD may reach) and
	 * responder_resources (what our IRD must cover).
	 */
	struct iw_cm_event ev = {
		.event = type,
		.status = status,
		.private_data = (void *)pd,
		.private_data_len = pd_len,
		.ird = min_t(u16, cep->v2.ird, U8_MAX),
		.ord = min_t(u16, cep->v2.ord, U8_MAX),
	};

	if (type == IW_CM_EVENT_CONNECT_REQUEST)
		ev.provider_data = (void *)(unsigned long)cep->request;
	xiw_cep_addrs(cep, &ev);
	trace_xiw_cm_event(dev_name(&cep->xdev->ibdev.dev), cep, cep->active,
			   xiw_iw_event_names[type], status);
	return id->event_handler(id, &ev);
}

/**
 * xiw_cep_drop_id() - drop the connection's iw_cm id after its last event
 * @cep: the endpoint
 *
 * The listening id too, if a passive endpoint still holds it (its MPA
 * Request not delivered yet). Called with @cep->lock held.
 */
void xiw_cep_drop_id(struct xiw_cep *cep)
{
	if (cep->cm_id) {
		cep->cm_id->provider_data = NULL;
		cep->cm_id->rem_ref(cep->cm_id);
		cep->cm_id = NULL;
	}
	if (cep->listen_id) {
		cep->listen_id->rem_ref(cep->listen_id);
		WRITE_ONCE(cep->listen_id, NULL);
	}
}

/* Let go of the QP, stopped: its connection will not call into it again. */
static void xiw_cep_put_qp(struct xiw_cep *cep)
{
	struct xiw_qp *qp = cep->qp;

	if (!qp)
		return;
	cep->qp = NULL;
	xiw_qp_cep_release(qp);
	xiw_qp_put(qp);
}

/**
 * xiw_cep_finish() - end the connection
 * @cep: the endpoint
 * @status: 0, or the error iw_cm's final event reports
 * @abort: close with an RST rather than after a FIN
 *
 * The connection is over. The QP stops first (its transmit engine is
 * waited out, so nothing sends on the socket any more), then the socket
 * goes, then the QP reference. Exactly one final event reaches iw_cm: a
 * failed CONNECT_REPLY if the active side never got that far, CLOSE
 * otherwise. A request still waiting for the ULP's answer is withdrawn.
 *
 * Called with @cep->lock held, in process context.
 */
void xiw_cep_finish(struct xiw_cep *cep, int status, bool abort)
{
	enum xiw_cep_state was = cep->state;
	struct xiw_qp *qp = cep->qp;

	if (was == XIW_CEP_CLOSED)
		return;
	xiw_cep_set_state(cep, XIW_CEP_CLOSED);
	xiw_cep_disarm(cep);
	if (qp) {
		if (was == XIW_CEP_RTS || was == XIW_CEP_CLOSING)
			xiw_log(cep->xdev, XIW_DEBUG_CONNECTIONS,
				"qp %u: connection ended (%d)%s\n",
				qp->ibqp.qp_num, status,
				abort ? ", reset" : "");
		xiw_qp_to_error(qp);
	}
	xiw_cep_release_sock(cep, abort);
	xiw_cep_put_qp(cep);

	if (cep->cm_id) {
		if (was == XIW_CEP_CONNECTING || was == XIW_CEP_AWAIT_REPLY)
			xiw_cep_deliver(cep, cep->cm_id,
					IW_CM_EVENT_CONNECT_REPLY,
					status ?: -ECONNRESET, NULL, 0);
		else if (was == XIW_CEP_RTS || was == XIW_CEP_CLOSING)
			xiw_cep_deliver(cep, cep->cm_id, IW_CM_EVENT_CLOSE,
					status, NULL, 0);
	}
	xiw_cep_drop_id(cep);
	xiw_cep_withdraw(cep);
}

/* -- MPA frames ----------------------------------------------------------- */

/*
 * Send an MPA frame: header, RFC 6581 data when @hdr carries S, then @pd.
 */
static int xiw_cep_send_mpa(struct xiw_cep *cep, struct xiw_mpa_hdr *hdr,
			    const struct xiw_mpa_v2 *v2, const void *pd,
			    u16 pd_len)
{
	u8 frame[XIW_MPA_HDR_LEN + sizeof(struct xiw_mpa_v2_data)];
	size_t len = XIW_MPA_HDR_LEN;
	struct kvec vec[2];
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	int n;

	BUILD_BUG_ON(sizeof(struct xiw_mpa_v2_data) != XIW_MPA_V2_DATA_LEN);
	hdr->pd_len = pd_len;
	if (hdr->enhanced) {
		hdr->pd_len += sizeof(struct xiw_mpa_v2_data);
		xiw_mpa_v2_encode(v2, (struct xiw_mpa_v2_data *)(frame + len));
		len += sizeof(struct xiw_mpa_v2_data);
	}
	xiw_mpa_hdr_build(hdr, frame);
	vec[0].iov_base = frame;
	vec[0].iov_len = len;
	vec[1].iov_base = (void *)pd;
	vec[1].iov_len = pd_len;
	n = kernel_sendmsg(cep->sock, &msg, vec, pd_len ? 2 : 1, len + pd_len);
	if (n < 0)
		return n;
	return n == len + pd_len ? 0 : -EIO;
}

/*
 * Read the rest of an MPA frame without consuming a byte beyond it (FPDUs
 * may follow a Reply in the same segment). Return: 1 when complete, 0 when
 * more is needed, or a negative error for a malformed frame.
 */
static int xiw_cep_read_mpa(struct xiw_cep *cep, enum xiw_mpa_frame_kind kind)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct kvec vec;
	size_t need;
	int n, err;

	for (;;) {
		need = cep->got < XIW_MPA_HDR_LEN ? XIW_MPA_HDR_LEN :
		       XIW_MPA_HDR_LEN + cep->hdr.pd_len;
		if (cep->got == need && cep->got >= XIW_MPA_HDR_LEN)
			return 1;
		vec.iov_base = cep->buf + cep->got;
		vec.iov_len = need - cep->got;
		n = kernel_recvmsg(cep->sock, &msg, &vec, 1, vec.iov_len,
				   MSG_DONTWAIT);
		if (n == -EAGAIN)
			return 0;
		if (n <= 0)
			return n ?: -ECONNRESET;
		cep->got += n;
		if (cep->got == XIW_MPA_HDR_LEN) {
			err = xiw_mpa_hdr_parse(cep->buf, cep->got, kind,
						&cep->hdr);
			if (err)
				return err;
		}
	}
}

/* Split received private data into RFC 6581 data and the ULP's part. */
static int xiw_cep_take_v2(struct xiw_cep *cep, u8 **pd, u8 *pd_len)
{
	u8 *p = cep->buf + XIW_MPA_HDR_LEN;
	u16 len = cep->hdr.pd_len;

	if (cep->hdr.enhanced) {
		/* xiw_mpa_hdr_parse() checked there is room for it. */
		xiw_mpa_v2_decode((struct xiw_mpa_v2_data *)p, &cep->v2);
		p += sizeof(struct xiw_mpa_v2_data);
		len -= sizeof(struct xiw_mpa_v2_data);
	} else {
		cep->v2 = (struct xiw_mpa_v2){ .ird = XIW_MAX_IRD,
					       .ord = XIW_MAX_ORD };
	}
	*pd = p;
	*pd_len = min_t(u16, len, U8_MAX);
	return 0;
}

/* Switch the socket to feeding the QP and start it. */
static int xiw_cep_go_rdma(struct xiw_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	int err;

	struct xiw_stream_params p = {
		.crc = cep->crc, .ord = cep->ord, .ird = cep->ird,
		.markers_tx = cep->markers_tx, .markers_rx = cep->markers_rx,
		.rtr_send = cep->rtr_send, .rtr_expect = cep->rtr_expect,
	};

	err = xiw_qp_start(cep->qp, cep->sock, &p);
	if (err)
		return err;
	xiw_log(cep->xdev, XIW_DEBUG_CONNECTIONS,
		"qp %u: connected, MPA revision %u, crc %s, markers out %s in %s, ord %u ird %u\n",
		cep->qp->ibqp.qp_num, cep->hdr.rev,
		cep->crc ? "on" : "off", cep->markers_tx ? "on" : "off",
		cep->markers_rx ? "on" : "off", cep->ord, cep->ird);
	write_lock_bh(&sk->sk_callback_lock);
	cep->rdma_mode = true;
	write_unlock_bh(&sk->sk_callback_lock);
	xiw_cep_set_state(cep, XIW_CEP_RTS);
	return 0;
}

/*
 * Wait out a segment TCP is processing (its softirq holds the socket),
 * then call the data callback for what is queued: octets already queued
 * behind the MPA frame reach the receive engine, or the handshake.
 */
static void xiw_cep_poke(struct xiw_cep *cep)
{
	struct sock *sk = cep->sock->sk;

	lock_sock(sk);
	sk->sk_data_ready(sk);
	release_sock(sk);
}

/**
 * xiw_cep_sock_setup() - set up a connection's TCP socket
 * @sock: the socket, before its endpoint takes it over
 *
 * What every connection's socket is set up with: no Nagle (FPDUs go out
 * as they are framed), a bound on a blocking send, and TCP keepalive. A
 * peer that vanishes without a FIN or RST (its host or namespace gone,
 * a cable cut) is noticed by TCP's retransmission limit while data is
 * unacknowledged (net.ipv4.tcp_retries2 of the netdev's namespace), but a
 * connection with nothing in flight (idle, only receiving, or waiting
 * for Read Responses to requests TCP already acknowledged) would live on
 * forever: keepalive ends it after that namespace's tcp_keepalive_time,
 * _intvl and _probes, as hardware RNICs keep their connections alive.
 *
 * Process context (the socket is locked).
 */
void xiw_cep_sock_setup(struct socket *sock)
{
	tcp_sock_set_nodelay(sock->sk);
	sock->sk->sk_sndtimeo = msecs_to_jiffies(xiw_policy_timeout_ms());
	sock_set_keepalive(sock->sk);
}

/* -- passive side ---------------------------------------------------------- */

/*
 * Answer the MPA Request with a rejecting Reply (RFC 5044 section 7.1.5:
 * R set), RFC 6581 data if the Request had them, then close gracefully:
 * the FIN follows the Reply, no RST can overtake it.
 */
static void xiw_cep_refuse(struct xiw_cep *cep, const void *pd, u8 len,
			   int status)
{
	struct xiw_mpa_hdr rep = {};
	struct xiw_mpa_v2 v2 = {};

	if (cep->state == XIW_CEP_AWAIT_ACCEPT && cep->sock) {
		rep.kind = XIW_MPA_REPLY;
		rep.reject = true;
		rep.rev = cep->hdr.rev;
		rep.enhanced = cep->hdr.enhanced;
		xiw_mpa_v2_respond(&cep->v2, 0, 0, &v2);
		xiw_cep_send_mpa(cep, &rep, &v2, pd, len);
	}
	xiw_cep_finish(cep, status, false);
}

static void xiw_cep_got_request(struct xiw_cep *cep)
{
	u8 *pd, pd_len;
	int err;

	err = xiw_cep_read_mpa(cep, XIW_MPA_REQUEST);
	if (err == 0)
		return;
	if (err < 0 || xiw_cep_take_v2(cep, &pd, &pd_len)) {
		xiw_log(cep->xdev, XIW_DEBUG_FAULTS,
			"bad MPA Request (%d), closing\n", err);
		xiw_cep_finish(cep, -EPROTO, true);
		return;
	}
	xiw_cep_set_state(cep, XIW_CEP_AWAIT_ACCEPT);
	/* The ULP's answer is a step like the others (xiw_cep_work()). */
	xiw_cep_arm(cep);
	err = xiw_cep_publish(cep);
	if (!err)
		err = xiw_cep_deliver(cep, cep->listen_id,
				      IW_CM_EVENT_CONNECT_REQUEST, 0, pd,
				      pd_len);
	/* The request is delivered: the listen may go away now. */
	cep->listen_id->rem_ref(cep->listen_id);
	WRITE_ONCE(cep->listen_id, NULL);
	if (err) {
		/* iw_cm took nothing: nobody else will answer the peer. */
		xiw_log(cep->xdev, XIW_DEBUG_FAULTS,
			"connection request refused by iw_cm (%d), rejecting\n",
			err);
		xiw_cep_refuse(cep, NULL, 0, -ECONNREFUSED);
	}
}

/*
 * The responder's C bit: CRC is used when either side asks, and a
 * responder asks only under the "required" policy.
 */
static bool xiw_crc_reply(const struct xiw_cep *cep)
{
	return cep->hdr.crc || cep->pol.crc == XIW_CRC_REQUIRED;
}

/**
 * xiw_accept() - accept a connection request: MPA Reply, QP to RTS
 * @id: the connection's iw_cm id; provider_data is the request's handle
 * @param: QP number, IRD/ORD, private data
 *
 * A request that cannot be accepted is rejected: iw_cm forgets it.
 *
 * Return: 0, -EINVAL (no such QP, private data too long), -EPERM (not
 * the caller's QP), -EBUSY (the QP is not idle, or another connection
 * holds it: xiw_qp_claim()), -ECONNRESET (the request is no longer
 * pending: timed out, peer or device gone), or a socket error.
 */
int xiw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct xiw_cep *cep = xiw_request_take(id);
	struct xiw_mpa_hdr rep = {};
	struct xiw_mpa_v2 v2 = {};
	struct xiw_qp *qp = NULL;
	int err;

	if (!cep)
		return -ECONNRESET;
	mutex_lock(&cep->lock);
	if (cep->state != XIW_CEP_AWAIT_ACCEPT) {
		err = -ECONNRESET;
		goto out_put;
	}
	/*
	 * After a failed accept iw_cm considers the request over and will
	 * not reject it: refuse it here.
	 */
	err = -EINVAL;
	if (param->private_data_len > XIW_MPA_PD_MAX - sizeof(v2))
		goto out_refuse;
	qp = xiw_qp_lookup(to_xiw_dev(id->device), param->qpn);
	if (!qp)
		goto out_refuse;
	kref_get(&cep->ref);	/* the QP's, once it refers to the endpoint */
	err = xiw_qp_claim(qp, cep);
	if (err) {
		xiw_cep_put(cep);	/* not taken: the request's remains */
		goto out_refuse;
	}
	xiw_cep_disarm(cep);
	cep->crc = xiw_crc_reply(cep);
	cep->markers_tx = cep->hdr.markers;
	cep->markers_rx = cep->pol.markers;
	xiw_mpa_v2_respond(&cep->v2, min_t(u32, param->ird, XIW_MAX_IRD),
			   min_t(u32, param->ord, XIW_MAX_ORD), &v2);
	if (cep->v2.p2p) {
		/* Peer-to-peer: hold the send queue until the RTR. */
		v2.p2p = true;
		v2.rtr = xiw_rtr_respond(cep->v2.rtr,
					 xiw_policy_rtr_supported(&cep->pol));
		cep->rtr_expect = v2.rtr;
		/* A Read RTR needs an inbound read slot (RFC 6581 9.1). */
		if ((v2.rtr & XIW_RTR_READ) && !v2.ird)
			v2.ird = 1;
	}
	if (v2.ird != XIW_MPA_V2_NO_NEGOTIATE)
		cep->ird = v2.ird;
	else
		cep->ird = min_t(u32, param->ird, XIW_MAX_IRD);
	if (v2.ord != XIW_MPA_V2_NO_NEGOTIATE)
		cep->ord = v2.ord;
	else
		cep->ord = min_t(u32, param->ord, XIW_MAX_ORD);

	cep->cm_id = id;
	id->add_ref(id);
	cep->qp = qp;		/* takes the lookup's reference */
	qp = NULL;

	err = xiw_cep_go_rdma(cep);
	if (!err) {
		rep.kind = XIW_MPA_REPLY;
		rep.crc = cep->crc;
		rep.markers = cep->markers_rx;
		rep.rev = cep->hdr.rev;
		rep.enhanced = cep->hdr.enhanced;
		err = xiw_cep_send_mpa(cep, &rep, &v2, param->private_data,
				       param->private_data_len);
	}
	if (err) {
		xiw_cep_set_state(cep, XIW_CEP_AWAIT_ACCEPT);	/* no CLOSE for iw_cm */
		xiw_cep_drop_id(cep);
		xiw_cep_finish(cep, err, true);
		goto out_put;
	}
	xiw_cep_deliver(cep, id, IW_CM_EVENT_ESTABLISHED, 0, NULL, 0);
	xiw_qp_open_tx(cep->qp);	/* the Reply is out: FPDUs may follow */
	xiw_cep_poke(cep);
	mutex_unlock(&cep->lock);
	xiw_cep_put(cep);	/* the request's reference ends with accept */
	return 0;

out_refuse:
	xiw_cep_refuse(cep, NULL, 0, -ECONNREFUSED);
out_put:
	mutex_unlock(&cep->lock);
	if (qp)
		xiw_qp_put(qp);
	xiw_cep_put(cep);	/* the request's */
	return err;
}

/**
 * xiw_reject() - refuse a connection request with an MPA Reply carrying R
 * @id: the connection's iw_cm id; provider_data is the request's handle
 * @pdata: private data for the peer
 * @len: its length
 *
 * Return: 0, or -ECONNRESET when the request is no longer pending (it
 * timed out, or its peer or device went away: it was refused then).
 */
int xiw_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
	struct xiw_cep *cep = xiw_request_take(id);

	id->provider_data = NULL;
	if (!cep)
		return -ECONNRESET;
	mutex_lock(&cep->lock);
	xiw_cep_refuse(cep, pdata, len, -ECONNREFUSED);
	mutex_unlock(&cep->lock);
	xiw_cep_put(cep);	/* the request's */
	return 0;
}

/* -- active side ------------------------------------------------------------ */

static int xiw_cep_do_connect(struct xiw_cep *cep)
{
	struct iw_cm_id *id = cep->cm_id;
	struct net *net = dev_net(cep->xdev->netdev);
	struct xiw_mpa_hdr req = {};
	struct sockaddr_storage local = id->local_addr;
	int alen = id->remote_addr.ss_family == AF_INET ?
		   sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	int err;

	err = sock_create_kern(net, id->remote_addr.ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &cep->sock);
	if (err) {
		cep->sock = NULL;
		return err;
	}
	xiw_cep_sock_setup(cep->sock);
	/*
	 * The port rdma_cm chose, so that the TCP connection is the one
	 * rdma_cm (and "rdma resource show") reports; its port space is not
	 * TCP's, though: if TCP has the port in use, take any.
	 */
	err = kernel_bind(cep->sock, (struct sockaddr *)&local, alen);
	if (err == -EADDRINUSE) {
		if (local.ss_family == AF_INET)
			((struct sockaddr_in *)&local)->sin_port = 0;
		else
			((struct sockaddr_in6 *)&local)->sin6_port = 0;
		err = kernel_bind(cep->sock, (struct sockaddr *)&local, alen);
	}
	if (err)
		return err;
	err = kernel_connect(cep->sock, (struct sockaddr *)&id->remote_addr,
			     alen, 0);
	if (err)
		return err == -EINPROGRESS || err == -EAGAIN ? -ETIMEDOUT : err;

	xiw_cep_attach(cep);
	req.kind = XIW_MPA_REQUEST;
	req.rev = cep->pol.mpa_rev;
	req.enhanced = req.rev == 2;	/* revision 2 always negotiates IRD/ORD */
	req.crc = cep->pol.crc != XIW_CRC_OFF;
	req.markers = cep->pol.markers;
	cep->crc = req.crc;
	cep->markers_rx = req.markers;
	cep->v2 = (struct xiw_mpa_v2){ .ird = cep->ird, .ord = cep->ord };
	if (req.enhanced && cep->pol.p2p) {
		cep->v2.p2p = true;
		cep->v2.rtr = xiw_policy_rtr_supported(&cep->pol);
		cep->rtr_offered = cep->v2.rtr;
	}
	xiw_cep_set_state(cep, XIW_CEP_AWAIT_REPLY);
	xiw_cep_arm(cep);
	err = xiw_cep_send_mpa(cep, &req, &cep->v2, cep->buf, cep->pd_len);
	cep->hdr = req;		/* what the Reply is checked against */
	cep->got = 0;
	return err;
}

/*
 * A Reply answers in the Request's revision; an enhanced Request (S) gets
 * an enhanced accepting Reply (RFC 6581 section 10). Rejecting Replies
 * may omit the enhanced data: siw's do.
 */
static int xiw_cep_reply_fits(const struct xiw_mpa_hdr *req,
			      const struct xiw_mpa_hdr *rep)
{
	if (rep->rev != req->rev)
		return -EPROTO;
	if (rep->enhanced && !req->enhanced)
		return -EPROTO;
	if (req->enhanced && !rep->enhanced && !rep->reject)
		return -EPROTO;
	return 0;
}

/*
 * Tell a responder with which we share no RTR kind so (RFC 6581 section
 * 9.2: LLP layer, MPA error type, "no matching RTR option") in the
 * stream's first FPDU, then close gracefully: the Terminate goes out, no
 * RST can overtake it.
 */
static void xiw_cep_send_no_rtr(struct xiw_cep *cep)
{
	u8 fpdu[XIW_MPA_LEN_SIZE + sizeof(struct xiw_untagged_hdr) +
		XIW_TERM_INFO_MAX + 3 + XIW_MPA_CRC_SIZE] = {};
	struct xiw_untagged_hdr *h = (void *)(fpdu + XIW_MPA_LEN_SIZE);
	int cause = XIW_TERM(XIW_TERM_LAYER_LLP, XIW_LLP_ETYPE_MPA,
			     XIW_MPA_ERR_RTR);
	struct kvec iov = { .iov_base = fpdu };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	u32 ulpdu, len;
	__le32 crc = 0;

	h->ctrl.ddp = XIW_DDP_LAST | XIW_DDP_VERSION;
	h->ctrl.rdmap = XIW_RDMAP_VERSION << XIW_RDMAP_VERSION_SHIFT |
			XIW_OP_TERMINATE;
	h->qn = cpu_to_be32(XIW_QN_TERMINATE);
	h->msn = cpu_to_be32(1);
	ulpdu = sizeof(*h) + xiw_term_info_build(cause, NULL, (u8 *)(h + 1));
	put_unaligned_be16(ulpdu, fpdu);
	len = XIW_MPA_LEN_SIZE + ulpdu + xiw_mpa_pad(ulpdu);
	if (cep->crc)
		crc = xiw_mpa_crc_final(xiw_mpa_crc_update(xiw_mpa_crc_init(),
							   fpdu, len));
	memcpy(fpdu + len, &crc, sizeof(crc));
	iov.iov_len = len + XIW_MPA_CRC_SIZE;
	kernel_sendmsg(cep->sock, &msg, &iov, 1, iov.iov_len);
}

/*
 * The Reply accepted: settle the connection model. Return: 0, or the
 * error the connect fails with (after the Terminate, if one is due).
 */
static int xiw_cep_pick_rtr(struct xiw_cep *cep)
{
	if (!cep->v2.p2p)
		return 0;	/* client-server, even if we offered p2p */
	if (!cep->rtr_offered) {
		xiw_log(cep->xdev, XIW_DEBUG_FAULTS,
			"MPA Reply chose peer-to-peer, which the Request did not offer\n");
		return -EPROTO;
	}
	cep->rtr_send = xiw_rtr_choose(cep->v2.rtr, cep->pol.rtr,
				       cep->pol.n_rtr);
	if (cep->rtr_send)
		return 0;
	xiw_log(cep->xdev, XIW_DEBUG_FAULTS,
		"no RTR kind in common with the peer (it offers 0x%x)\n",
		cep->v2.rtr);
	xiw_cep_send_no_rtr(cep);
	return -ECONNREFUSED;
}

static void xiw_cep_got_reply(struct xiw_cep *cep)
{
	struct xiw_mpa_hdr req = cep->hdr;
	u8 *pd, pd_len;
	int err;

	err = xiw_cep_read_mpa(cep, XIW_MPA_REPLY);
	if (err == 0)
		return;
	if (err > 0)
		err = xiw_cep_reply_fits(&req, &cep->hdr) ?:
		      xiw_cep_take_v2(cep, &pd, &pd_len);
	if (err < 0) {
		xiw_log(cep->xdev, XIW_DEBUG_FAULTS, "bad MPA Reply (%d)\n",
			err);
		/* A malformed Reply is not a rejection: CONNECT_ERROR. */
		xiw_cep_finish(cep, err, true);
		return;
	}
	xiw_cep_disarm(cep);
	if (cep->hdr.reject) {
		xiw_cep_deliver(cep, cep->cm_id, IW_CM_EVENT_CONNECT_REPLY,
				-ECONNREFUSED, pd, pd_len);
		xiw_cep_drop_id(cep);
		xiw_cep_finish(cep, 0, false);
		return;
	}
	cep->markers_tx = cep->hdr.markers;
	err = xiw_cep_pick_rtr(cep);
	if (err) {
		xiw_cep_finish(cep, err, err != -ECONNREFUSED);
		return;
	}
	/* CRC is used when either side asked for it. */
	cep->crc = cep->crc || cep->hdr.crc;
	if (cep->v2.ird != XIW_MPA_V2_NO_NEGOTIATE)
		cep->ord = min(cep->ord, cep->v2.ird);
	if (cep->v2.ord != XIW_MPA_V2_NO_NEGOTIATE)
		cep->ird = max(cep->ird, min_t(u16, cep->v2.ord, XIW_MAX_IRD));
	err = xiw_cep_go_rdma(cep);
	if (err) {
		xiw_cep_finish(cep, err, true);
		return;
	}
	/*
	 * iw_cm copies the private data with GFP_ATOMIC and drops the event
	 * when that fails: its id would wait in CONN_SENT, and a CLOSE there
	 * is a BUG() in iw_cm. Without private data nothing is copied.
	 */
	if (xiw_cep_deliver(cep, cep->cm_id, IW_CM_EVENT_CONNECT_REPLY, 0, pd,
			    pd_len))
		xiw_cep_deliver(cep, cep->cm_id, IW_CM_EVENT_CONNECT_REPLY, 0,
				NULL, 0);
	xiw_qp_open_tx(cep->qp);
	xiw_cep_poke(cep);
}

/**
 * xiw_connect() - start an active connection; the outcome arrives as an
 *	IW_CM_EVENT_CONNECT_REPLY
 * @id: the iw_cm id, with local and remote address resolved
 * @param: QP number, IRD/ORD, private data
 *
 * Return: 0 (connecting), -EINVAL (no such QP, private data too long),
 * -EPERM (not the caller's QP), -EBUSY (the QP is not idle, or another
 * connection holds it: xiw_qp_claim()), -ENOMEM.
 */
int xiw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct xiw_device *xdev = to_xiw_dev(id->device);
	struct xiw_cep *cep;
	struct xiw_qp *qp;
	int err;

	if (param->private_data_len > XIW_MPA_PD_MAX - sizeof(struct xiw_mpa_v2_data))
		return -EINVAL;
	qp = xiw_qp_lookup(xdev, param->qpn);
	if (!qp)
		return -EINVAL;
	cep = xiw_cep_alloc(xdev, true);
	if (!cep) {
		xiw_qp_put(qp);
		return -ENOMEM;
	}
	/*
	 * Once claimed, the QP refers to the endpoint, and a teardown of
	 * the QP (modify to ERR, destroy, the netdev going down) may queue
	 * an abort for it at once: the lock keeps the endpoint's work from
	 * seeing it before it is whole.
	 */
	mutex_lock(&cep->lock);
	kref_get(&cep->ref);	/* the QP's, once it refers to the endpoint */
	err = xiw_qp_claim(qp, cep);
	if (err) {
		mutex_unlock(&cep->lock);
		xiw_cep_put(cep);	/* the QP's, not taken */
		xiw_cep_put(cep);	/* ours: no one else knows it */
		xiw_qp_put(qp);
		return err;
	}
	memcpy(cep->buf, param->private_data, param->private_data_len);
	cep->pd_len = param->private_data_len;
	cep->ird = min_t(u32, param->ird, XIW_MAX_IRD);
	cep->ord = min_t(u32, param->ord, XIW_MAX_ORD);
	xiw_cep_set_state(cep, XIW_CEP_CONNECTING);
	cep->cm_id = id;
	id->add_ref(id);
	id->provider_data = cep;
	cep->qp = qp;

	xiw_cep_event(cep, XIW_CEP_EV_CONNECT);
	mutex_unlock(&cep->lock);
	xiw_cep_put(cep);	/* the QP and the queued work hold it */
	return 0;
}

/* -- teardown -------------------------------------------------------------- */

/**
 * xiw_cep_abort() - close abortively (RST); the QP already is in error
 * @cep: the endpoint
 */
void xiw_cep_abort(struct xiw_cep *cep)
{
	xiw_cep_event(cep, XIW_CEP_EV_ABORT);
}

/**
 * xiw_cep_shutdown() - the send queue drained after SQD: send FIN
 * @cep: the endpoint
 */
void xiw_cep_shutdown(struct xiw_cep *cep)
{
	xiw_cep_event(cep, XIW_CEP_EV_SHUTDOWN);
}

/**
 * xiw_cep_close() - the QP went to error during an orderly close: end the
 *	connection with a FIN, without making the QP wait for the peer's
 * @cep: the endpoint
 *
 * An abort asked for before or after wins.
 */
void xiw_cep_close(struct xiw_cep *cep)
{
	xiw_cep_event(cep, XIW_CEP_EV_CLOSE);
}

static int xiw_cep_discard_actor(read_descriptor_t *desc, struct sk_buff *skb,
				 unsigned int off, size_t len)
{
	return len;
}

/*
 * Lingering: what the peer still sends is read and dropped. Left in the
 * receive queue, it would turn the socket's release into an RST.
 */
static void xiw_cep_discard(struct xiw_cep *cep)
{
	read_descriptor_t desc = { .count = 1 };
	struct sock *sk = cep->sock->sk;

	lock_sock(sk);
	tcp_read_sock(sk, &desc, xiw_cep_discard_actor);
	release_sock(sk);
}

/* What came of the MPA frame awaited, if one is: a Request or a Reply. */
static void xiw_cep_take_mpa(struct xiw_cep *cep)
{
	if (cep->state == XIW_CEP_AWAIT_REQUEST)
		xiw_cep_got_request(cep);
	else if (cep->state == XIW_CEP_AWAIT_REPLY)
		xiw_cep_got_reply(cep);
}

/*
 * Whether our Terminate is still on its way out, or went out and the
 * close it asked for (xiw_tx_fail(), EV_SHUTDOWN) is queued: the close
 * follows it, not the peer's FIN.
 */
static bool xiw_cep_term_pending(struct xiw_cep *cep)
{
	/* Set by xiw_qp_terminate(), left by xiw_tx_fail() after sending. */
	return test_bit(XIW_CEP_EV_SHUTDOWN, &cep->events) ||
	       (cep->qp && READ_ONCE(cep->qp->state) == XIW_QPS_TERMINATE);
}

static void xiw_cep_sock_state(struct xiw_cep *cep)
{
	struct sock *sk;
	int state;

	if (!cep->sock)
		return;
	sk = cep->sock->sk;
	state = READ_ONCE(sk->sk_state);
	if (state != TCP_CLOSE && state != TCP_CLOSE_WAIT &&
	    state != TCP_TIME_WAIT && state != TCP_LAST_ACK &&
	    state != TCP_CLOSING)
		return;

	/*
	 * The peer's last octets can come in the segment of its FIN, and
	 * TCP changes the state (this work) before it calls the data
	 * callback for them. Taking the socket's lock waits for that
	 * segment to be queued: what the peer sent before its FIN is taken
	 * first - an MPA Reject still rejects, a Request or Reply still
	 * counts, a last FPDU is delivered or answered with a Terminate.
	 */
	if (cep->state == XIW_CEP_AWAIT_REQUEST ||
	    cep->state == XIW_CEP_AWAIT_REPLY) {
		lock_sock(sk);
		release_sock(sk);
		xiw_cep_take_mpa(cep);
	} else if (cep->state == XIW_CEP_RTS && state == TCP_CLOSE_WAIT) {
		xiw_cep_poke(cep);
	}

	switch (cep->state) {
	case XIW_CEP_RTS:
		/* Our Terminate goes first; the timer bounds its going. */
		if (state == TCP_CLOSE_WAIT && xiw_cep_term_pending(cep)) {
			cep->peer_fin = true;
			xiw_cep_arm(cep);
			break;
		}
		if (state == TCP_CLOSE_WAIT && cep->cm_id)
			xiw_cep_deliver(cep, cep->cm_id,
					IW_CM_EVENT_DISCONNECT, 0, NULL, 0);
		xiw_cep_finish(cep, READ_ONCE(sk->sk_err) ? -ECONNRESET : 0,
			       state == TCP_CLOSE);
		break;
	case XIW_CEP_CLOSING:
		xiw_cep_finish(cep, 0, false);
		break;
	case XIW_CEP_LINGER:
		/* Not before both FINs are acknowledged: no orphan socket. */
		if (state == TCP_CLOSE)
			xiw_cep_finish(cep, 0, false);
		break;
	default:
		xiw_cep_finish(cep, -ECONNRESET, true);
		break;
	}
}

/*
 * The QP went to error after an orderly close began: after SQD (the FIN
 * goes now if the send queue had not drained yet), or after our Terminate
 * and FIN went out. RFC 5040 section 5 asks for an orderly LLP close, a
 * FIN from each side; the ULP's drain moves the QP to error before the
 * FINs crossed, and destroy_qp must not wait for a peer that may never
 * send its FIN (issue 24, finding 9). So the RDMA side ends now: the QP
 * is let go and iw_cm gets CLOSE. The socket lingers until TCP is done
 * with both FINs (TCP_CLOSE: no orphan is left behind), discarding what
 * still arrives, for at most mpa_timeout_ms (then an RST), or until the
 * device goes (xiw_cm_device_gone() aborts it).
 */
static void xiw_cep_linger(struct xiw_cep *cep)
{
	struct xiw_qp *qp = cep->qp;
	struct sock *sk;

	if ((cep->state != XIW_CEP_RTS && cep->state != XIW_CEP_CLOSING) ||
	    !cep->sock)
		return;
	sk = cep->sock->sk;
	if (cep->state == XIW_CEP_RTS)
		kernel_sock_shutdown(cep->sock, SHUT_WR);
	xiw_cep_set_state(cep, XIW_CEP_LINGER);
	/* Socket callbacks stop calling into the QP before it goes. */
	write_lock_bh(&sk->sk_callback_lock);
	cep->rdma_mode = false;
	write_unlock_bh(&sk->sk_callback_lock);
	if (qp) {
		xiw_log(cep->xdev, XIW_DEBUG_CONNECTIONS,
			"qp %u: connection ended, closing\n", qp->ibqp.qp_num);
		/* Done by whoever asked for the close: waits it out. */
		xiw_qp_to_error(qp);
		xiw_cep_put_qp(cep);
	}
	if (cep->cm_id)
		xiw_cep_deliver(cep, cep->cm_id, IW_CM_EVENT_CLOSE, 0, NULL, 0);
	xiw_cep_drop_id(cep);
	xiw_cep_arm(cep);
	xiw_cep_discard(cep);
	xiw_cep_sock_state(cep);
}

/* The step the timer bounds did not end in time. */
static void xiw_cep_timed_out(struct xiw_cep *cep)
{
	switch (cep->state) {
	case XIW_CEP_AWAIT_ACCEPT:
		/*
		 * The ULP did not answer within mpa_timeout_ms, which is
		 * also how long an xiw initiator waits for the Reply (siw's
		 * waits 5 s): a later accept would answer a peer that gave
		 * up. iw_cm may also have lost the request (see
		 * xiw_requests), and then nobody else would ever answer.
		 */
		xiw_log(cep->xdev, XIW_DEBUG_FAULTS,
			"connection request not answered in time, rejecting\n");
		xiw_cep_refuse(cep, NULL, 0, -ETIMEDOUT);
		break;
	case XIW_CEP_RTS:
		/* The peer closed; our Terminate did not get out in time. */
		if (cep->peer_fin) {
			xiw_log(cep->xdev, XIW_DEBUG_FAULTS,
				"terminate not sent in time after the peer's close\n");
			xiw_cep_finish(cep, -ETIMEDOUT, true);
		}
		break;
	case XIW_CEP_CLOSED:
		break;
	default:
		xiw_log(cep->xdev, XIW_DEBUG_FAULTS,
			"connection step timed out\n");
		xiw_cep_finish(cep, -ETIMEDOUT, true);
		break;
	}
}

static void xiw_cep_work(struct work_struct *w)
{
	struct xiw_cep *cep = container_of(w, struct xiw_cep, work);
	int err;

	mutex_lock(&cep->lock);
	if (test_and_clear_bit(XIW_CEP_EV_CONNECT, &cep->events) &&
	    cep->state == XIW_CEP_CONNECTING) {
		err = xiw_cep_do_connect(cep);
		if (err)
			xiw_cep_finish(cep, err, true);
	}
	if (test_and_clear_bit(XIW_CEP_EV_DATA, &cep->events)) {
		if (cep->state == XIW_CEP_LINGER)
			xiw_cep_discard(cep);
		else
			xiw_cep_take_mpa(cep);
	}
	/* After SQD drained, or after our Terminate went out. */
	if (test_and_clear_bit(XIW_CEP_EV_SHUTDOWN, &cep->events) &&
	    cep->state == XIW_CEP_RTS && cep->sock) {
		xiw_cep_set_state(cep, XIW_CEP_CLOSING);
		kernel_sock_shutdown(cep->sock, SHUT_WR);
		xiw_cep_arm(cep);
	}
	if (test_and_clear_bit(XIW_CEP_EV_STATE, &cep->events))
		xiw_cep_sock_state(cep);
	if (test_and_clear_bit(XIW_CEP_EV_TIMEOUT, &cep->events))
		xiw_cep_timed_out(cep);
	if (test_and_clear_bit(XIW_CEP_EV_ABORT, &cep->events))
		xiw_cep_finish(cep, -ECONNABORTED, true);
	/* After the abort: an abort asked for at the same time wins. */
	if (test_and_clear_bit(XIW_CEP_EV_CLOSE, &cep->events))
		xiw_cep_linger(cep);
	mutex_unlock(&cep->lock);
	xiw_cep_put(cep);
}

static bool xiw_cm_device_idle(struct xiw_device *xdev)
{
	bool idle;

	spin_lock_bh(&xdev->ceps_lock);
	idle = list_empty(&xdev->ceps);
	spin_unlock_bh(&xdev->ceps_lock);
	return idle;
}

/**
 * xiw_cm_device_gone() - end the device's remaining connections and wait
 *	until their endpoints are freed
 * @xdev: the device, unregistered: no iw_cm id refers to it any more
 *
 * What can remain are endpoints closing gracefully, waiting for the peer's
 * FIN or their timer: they are aborted, so that none outlives the device
 * (or the module, and with it its timer's callback).
 */
void xiw_cm_device_gone(struct xiw_device *xdev)
{
	struct xiw_cep *cep, *found;

	do {
		found = NULL;
		spin_lock_bh(&xdev->ceps_lock);
		list_for_each_entry(cep, &xdev->ceps, node) {
			if (!cep->doomed && kref_get_unless_zero(&cep->ref)) {
				cep->doomed = true;
				found = cep;
				break;
			}
		}
		spin_unlock_bh(&xdev->ceps_lock);
		if (found) {
			xiw_cep_abort(found);
			xiw_cep_put(found);
		}
	} while (found);
	wait_event(xdev->ceps_gone, xiw_cm_device_idle(xdev));
}

/**
 * xiw_cm_init() - create the connection manager's workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int xiw_cm_init(void)
{
	xiw_cm_wq = alloc_workqueue("xiw_cm", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return xiw_cm_wq ? 0 : -ENOMEM;
}

/**
 * xiw_cm_exit() - wait for connection work and destroy the workqueue
 */
void xiw_cm_exit(void)
{
	destroy_workqueue(xiw_cm_wq);
}
