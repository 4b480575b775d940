// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiw_qp_claim MODE ...: what becomes of QPs that a process names by
 * number, or stops caring about (test_qp_claim.py). iw_cm takes the QP of
 * a connect or an accept by the number its caller gives, and the RDMA
 * CM passes a process's number as it is (rdma_connect() and
 * rdma_accept() of an id without a QP: conn_param.qp_num).
 *
 *   serve ADDR PORT        listen; accept one connection with a QP of
 *                          its own; receive one message; print
 *                          {"received": octets} (exit 0)
 *   hold ADDR PORT GO      a QP of its own on an id resolved to ADDR:
 *                          connect it first unless GO is given as
 *                          "idle:FILE"; print {"qpn": N}; wait until the
 *                          file exists; then (connecting now if idle)
 *                          send one message and print {"sent": status}
 *                          (exit 0 if it completed successfully)
 *   connect ADDR PORT QPN  rdma_connect() an id without a QP, naming QPN;
 *                          print {"connect": errno or 0}
 *   accept ADDR PORT QPN   listen; rdma_accept() the first request,
 *                          naming QPN; print {"accept": errno or 0}
 *   orphan DEV             twice a QP with four receives posted, moved to
 *                          error so that they complete flushed: polled
 *                          then destroyed, then destroyed before its CQ
 *                          is polled; print {"flushed": what the first
 *                          poll found, "after_destroy": the second}
 *   crowd DEV              a QP with sixteen receives posted and another
 *                          share a CQ of four entries, armed; the first
 *                          is destroyed; print {"cq_events": completion
 *                          events, "async_events": asynchronous events
 *                          then, "other_flushed": what the other's one
 *                          receive, flushed, put in the CQ after}
 *
 * Exit status 2 for a failure of the program's own setup.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "util.h"

#define MSG_LEN 64

static char buf[MSG_LEN];
/* The CQ of own_qp()'s QP (librdmacm fills id->send_cq only for CQs it
 * made itself). */
static struct ibv_cq *own_cq;

static struct rdma_cm_event *expect_event(struct rdma_event_channel *ch,
					  enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event");
	if (ev->event != type) {
		fprintf(stderr, "event %s (status %d), expected %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(type));
		exit(2);
	}
	return ev;
}

static struct rdma_addrinfo *addr_of(const char *addr, const char *port,
				     int passive)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *res;

	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo");
	return res;
}

/* An id resolved to @addr:@port, its route too. */
static struct rdma_cm_id *resolved(struct rdma_event_channel *ch,
				   const char *addr, const char *port)
{
	struct rdma_addrinfo *ai = addr_of(addr, port, 0);
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_resolve_addr(id, NULL, ai->ai_dst_addr, 2000))
		die("rdma_resolve_addr");
	rdma_ack_cm_event(expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 2000))
		die("rdma_resolve_route");
	rdma_ack_cm_event(expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED));
	rdma_freeaddrinfo(ai);
	return id;
}

/* A listening id on @addr:@port. */
static struct rdma_cm_id *listening(struct rdma_event_channel *ch,
				    const char *addr, const char *port)
{
	struct rdma_addrinfo *ai = addr_of(addr, port, 1);
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_bind_addr(id, ai->ai_src_addr) || rdma_listen(id, 4))
		die("rdma_bind_addr/rdma_listen");
	rdma_freeaddrinfo(ai);
	return id;
}

/* A QP of the id's own (RC, one CQ), and a registered message buffer. */
static struct ibv_mr *own_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_pd *pd = ibv_alloc_pd(id->verbs);
	struct ibv_cq *cq = ibv_create_cq(id->verbs, 8, NULL, NULL, 0);
	struct ibv_mr *mr;

	if (!pd || !cq)
		die("ibv_alloc_pd/ibv_create_cq");
	own_cq = cq;
	attr.send_cq = cq;
	attr.recv_cq = cq;
	if (rdma_create_qp(id, pd, &attr))
		die("rdma_create_qp");
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	return mr;
}

static struct ibv_wc wait_wc(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	int n;

	/* Bounded by the test's own timeout on the whole program. */
	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
		usleep(1000);
	if (n < 0)
		die("ibv_poll_cq");
	return wc;
}

static int serve(const char *addr, const char *port)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *conn;
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_sge sge;
	struct ibv_mr *mr;
	struct ibv_wc wc;

	if (!ch)
		die("rdma_create_event_channel");
	listening(ch, addr, port);
	ev = expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	conn = ev->id;
	rdma_ack_cm_event(ev);
	mr = own_qp(conn);
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (ibv_post_recv(conn->qp, &wr, &bad))
		die("ibv_post_recv");
	if (rdma_accept(conn, &param))
		die("rdma_accept");
	rdma_ack_cm_event(expect_event(ch, RDMA_CM_EVENT_ESTABLISHED));
	wc = wait_wc(own_cq);
	printf("{\"received\": %d, \"status\": \"%s\"}\n",
	       wc.status == IBV_WC_SUCCESS ? (int)wc.byte_len : -1,
	       ibv_wc_status_str(wc.status));
	return wc.status == IBV_WC_SUCCESS ? 0 : 1;
}

static void connect_own(struct rdma_event_channel *ch, struct rdma_cm_id *id)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1 };

	if (rdma_connect(id, &param))
		die("rdma_connect");
	rdma_ack_cm_event(expect_event(ch, RDMA_CM_EVENT_ESTABLISHED));
}

static int hold(const char *addr, const char *port, const char *go)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	int idle = !strncmp(go, "idle:", 5);
	struct ibv_send_wr wr = {}, *bad;
	struct rdma_cm_id *id;
	struct ibv_sge sge;
	struct ibv_mr *mr;
	struct ibv_wc wc;

	if (!ch)
		die("rdma_create_event_channel");
	if (idle)
		go += 5;
	id = resolved(ch, addr, port);
	mr = own_qp(id);
	if (!idle)
		connect_own(ch, id);
	printf("{\"qpn\": %u}\n", id->qp->qp_num);
	fflush(stdout);
	while (access(go, F_OK))	/* bounded by the test's timeout */
		usleep(10000);
	if (idle)
		connect_own(ch, id);
	memset(buf, 0xa5, sizeof(buf));
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(id->qp, &wr, &bad))
		die("ibv_post_send");
	wc = wait_wc(own_cq);
	printf("{\"sent\": \"%s\"}\n", ibv_wc_status_str(wc.status));
	return wc.status == IBV_WC_SUCCESS ? 0 : 1;
}

static int name_qpn(const char *mode, const char *addr, const char *port,
		    unsigned int qpn)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1,
					 .qp_num = qpn };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int err;

	if (!ch)
		die("rdma_create_event_channel");
	if (!strcmp(mode, "connect")) {
		id = resolved(ch, addr, port);
		err = rdma_connect(id, &param) ? errno : 0;
	} else {
		listening(ch, addr, port);
		ev = expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
		id = ev->id;
		rdma_ack_cm_event(ev);
		err = rdma_accept(id, &param) ? errno : 0;
	}
	printf("{\"%s\": %d, \"error\": \"%s\"}\n", mode, err,
	       err ? strerror(err) : "");
	return 0;
}

/*
 * A QP with four receives posted, moved to error (the receives complete
 * flushed); then either its CQ polled, or the QP destroyed first and the
 * CQ polled after. Return: what the poll found.
 */
static int orphan_round(struct ibv_pd *pd, struct ibv_cq *cq,
			struct ibv_mr *mr, int destroy_first)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp *qp = rc_qp(pd, cq, mr, buf, sizeof(buf), 4, 4);
	struct ibv_wc wc;
	int n = 0;

	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE))
		die("ibv_modify_qp");
	if (destroy_first && ibv_destroy_qp(qp))
		die("ibv_destroy_qp");
	while (ibv_poll_cq(cq, 1, &wc) > 0)
		n++;
	if (!destroy_first && ibv_destroy_qp(qp))
		die("ibv_destroy_qp");
	return n;
}

static int orphan(const char *name)
{
	struct ibv_context *ctx = open_dev(name);
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	int before;

	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
		  NULL;
	if (!mr)
		die("PD, CQ, MR");
	before = orphan_round(pd, cq, mr, 0);
	printf("{\"flushed\": %d, \"after_destroy\": %d}\n", before,
	       orphan_round(pd, cq, mr, 1));
	return 0;
}

static void nonblocking(int fd)
{
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
		die("fcntl");
}

static int crowd(const char *name)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_context *ctx = open_dev(name);
	struct ibv_comp_channel *ch;
	struct ibv_async_event ev;
	struct ibv_qp *gone, *other;
	struct ibv_cq *cq, *ev_cq;
	int events = 0, async = 0, flushed = 0;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	void *ev_ctx;

	pd = ibv_alloc_pd(ctx);
	ch = pd ? ibv_create_comp_channel(ctx) : NULL;
	cq = ch ? ibv_create_cq(ctx, 4, NULL, ch, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
		  NULL;
	if (!mr)
		die("PD, channel, CQ, MR");
	nonblocking(ch->fd);
	nonblocking(ctx->async_fd);
	gone = rc_qp(pd, cq, mr, buf, sizeof(buf), 16, 16);
	other = rc_qp(pd, cq, mr, buf, sizeof(buf), 16, 0);
	if (ibv_req_notify_cq(cq, 0))
		die("ibv_req_notify_cq");
	if (ibv_destroy_qp(gone))
		die("ibv_destroy_qp");
	while (!ibv_get_cq_event(ch, &ev_cq, &ev_ctx))
		events++;
	if (errno != EAGAIN)
		die("ibv_get_cq_event");
	if (events)
		ibv_ack_cq_events(cq, events);
	while (!ibv_get_async_event(ctx, &ev)) {
		async++;
		ibv_ack_async_event(&ev);
	}
	if (errno != EAGAIN)
		die("ibv_get_async_event");
	/* The CQ serves the other QP as before. */
	post_receives(other, mr, buf, sizeof(buf), 1);
	if (ibv_modify_qp(other, &attr, IBV_QP_STATE))
		die("ibv_modify_qp");
	while (ibv_poll_cq(cq, 1, &wc) > 0)
		flushed += wc.status == IBV_WC_WR_FLUSH_ERR;
	printf("{\"cq_events\": %d, \"async_events\": %d, "
	       "\"other_flushed\": %d}\n", events, async, flushed);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "hold"))
		return hold(argv[2], argv[3], argv[4]);
	if (argc == 5 && (!strcmp(argv[1], "connect") ||
			  !strcmp(argv[1], "accept")))
		return name_qpn(argv[1], argv[2], argv[3],
				strtoul(argv[4], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "orphan"))
		return orphan(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "crowd"))
		return crowd(argv[2]);
	fprintf(stderr, "usage: see the top of qp_claim.c\n");
	return 2;
}
