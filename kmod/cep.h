/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connection endpoints' insides, shared by cm.c (the MPA handshake,
 * teardown and iw_cm events) and listen.c (the listening sockets, which
 * make the passive endpoints). The rest of the module sees cm.h only.
 */
#ifndef XIW_CEP_H
#define XIW_CEP_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "mpa.h"
#include "policy.h"
#include "rdmap.h"

struct iw_cm_id;
struct sock;
struct socket;
struct xiw_device;
struct xiw_qp;

extern struct workqueue_struct *xiw_cm_wq;

enum xiw_cep_state {
	XIW_CEP_NEW,		/* allocated, not yet either side */
	XIW_CEP_CONNECTING,	/* active: TCP connect, MPA Request */
	XIW_CEP_AWAIT_REPLY,	/* active: waiting for the MPA Reply */
	XIW_CEP_AWAIT_REQUEST,	/* passive: reading the MPA Request */
	XIW_CEP_AWAIT_ACCEPT,	/* passive: request handed to the ULP */
	XIW_CEP_RTS,		/* connected */
	XIW_CEP_CLOSING,	/* our FIN is out */
	XIW_CEP_LINGER,		/* QP let go: the FINs still to cross */
	XIW_CEP_CLOSED,
};

/* Events recorded by socket callbacks and verbs for the cep's work. */
enum {
	XIW_CEP_EV_CONNECT,
	XIW_CEP_EV_DATA,
	XIW_CEP_EV_STATE,
	XIW_CEP_EV_TIMEOUT,
	XIW_CEP_EV_ABORT,
	XIW_CEP_EV_SHUTDOWN,
	XIW_CEP_EV_CLOSE,
};

/**
 * struct xiw_cep - one connection endpoint
 * @ref: references: creator, queued work, QP, iw_cm (as provider_data)
 * @lock: serialises the handshake and teardown; protects the fields below
 * @state: handshake/teardown state
 * @active: this end connected (initiator)
 * @xdev: the device
 * @sock: the TCP socket
 * @cm_id: the connection's iw_cm id (referenced)
 * @listen_id: passive: the listening iw_cm id the request goes to (also
 *	       read locklessly, as a hint, when the listen is destroyed)
 * @qp: the QP bound by connect/accept (referenced)
 * @work: runs the handshake steps and teardown
 * @timer: bounds each handshake step and the graceful close
 * @events: XIW_CEP_EV_* bits
 * @got: octets of the MPA frame in @buf so far
 * @hdr: the received MPA header
 * @v2: received RFC 6581 data
 * @pol: the device's connection policy when the endpoint began
 * @ird: our IRD (negotiated once connected)
 * @ord: our ORD (negotiated once connected)
 * @crc: CRC32c in use
 * @markers_tx: the peer's frame asked for markers: we send them
 * @markers_rx: our frame asked for markers: the peer sends them
 * @rtr_offered: initiator: the RTR kinds its Request offered (peer-to-peer
 *	model), 0 for client-server
 * @rtr_send: initiator, peer-to-peer model: the RTR kind to send
 * @rtr_expect: responder, peer-to-peer model: the RTR kinds accepted
 * @rdma_mode: socket callbacks feed the QP, not the handshake
 * @peer_fin: in RTS, the peer's FIN came while our Terminate was still
 *	      going out: the close waits for it, bounded by the timer
 * @pd_len: active: length of the private data in @buf to send
 * @buf: MPA frame being sent or received
 * @saved_data_ready: the socket's callback before xiw took over
 * @saved_state_change: likewise
 * @saved_write_space: likewise
 * @node: on the device's list of endpoints (xdev->ceps_lock)
 * @doomed: xiw_cm_device_gone() aborted it (xdev->ceps_lock)
 * @request: passive: its handle in xiw_requests while iw_cm may still
 *	     accept or reject it (0: never published)
 */
struct xiw_cep {
	struct kref ref;
	struct mutex lock;	/* handshake and teardown state */
	enum xiw_cep_state state;
	bool active;
	struct xiw_device *xdev;
	struct socket *sock;
	struct iw_cm_id *cm_id;
	struct iw_cm_id *listen_id;
	struct xiw_qp *qp;
	struct work_struct work;
	struct delayed_work timer;
	unsigned long events;
	u16 got;
	struct xiw_mpa_hdr hdr;
	struct xiw_mpa_v2 v2;
	struct xiw_conn_policy pol;
	u16 ird;
	u16 ord;
	bool crc;
	bool markers_tx;
	bool markers_rx;
	u8 rtr_offered;
	u8 rtr_send;
	u8 rtr_expect;
	bool rdma_mode;
	bool peer_fin;
	u16 pd_len;
	u8 buf[XIW_MPA_HDR_LEN + XIW_MPA_PD_MAX];
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	struct list_head node;
	bool doomed;
	u32 request;
};

struct xiw_cep *xiw_cep_alloc(struct xiw_device *xdev, bool active);
void xiw_cep_sock_setup(struct socket *sock);
void xiw_cep_set_state(struct xiw_cep *cep, enum xiw_cep_state to);
void xiw_cep_attach(struct xiw_cep *cep);
void xiw_cep_arm(struct xiw_cep *cep);
void xiw_cep_event(struct xiw_cep *cep, int bit);
void xiw_cep_finish(struct xiw_cep *cep, int status, bool abort);
void xiw_cep_drop_id(struct xiw_cep *cep);

#endif /* XIW_CEP_H */
