// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf server: shared receive queues (XP_HELLO_SRQ). The connections of
 * one client run (same run id) take their receives from one SRQ of @nrecv
 * buffers (struct xp_srq_group).
 *
 * Credits. A credit lets a client send one message. The group grants
 * credits only for receives it has posted (granted <= posted), so however
 * the connections' messages interleave, the SRQ is never empty when one
 * arrives. Each connection gets its share of the first @nrecv in the
 * accept; later credits go to the connections that still need some (never
 * beyond a connection's count, so every credit granted gets used), those
 * with the fewest outstanding first.
 *
 * Limit. The group arms the SRQ's limit L (@nrecv / 4, at least 1) and,
 * while armed, reposts nothing: buffers completed meanwhile are held. So
 * the SRQ's fill level only falls during an arm, and the device has to
 * report IB_EVENT_SRQ_LIMIT_REACHED once, at the receive that leaves
 * fewer than L posted. The group counts the fill level as posted minus
 * completed, never below the device's (a receive is taken before it
 * completes); when that count falls below L the arm is crossed. The group
 * then reposts what it holds and arms again, but only while the receives
 * posted and not granted are at least L: no client can take those, so
 * the SRQ holds at least L when the arm takes effect. An arm that lasts
 * to the end of the run is not crossed: its count, exact then, stayed at
 * L or more. So the crossed arms are exactly those the device must
 * report: events == crossed, and no event outside an arm (stray).
 *
 * The device raises an arm's event when it takes the receive that crosses
 * it, but the event may be delivered after a later receive of another
 * connection completed: the group may have seen the arm crossed and armed
 * again by then. So an event is stray only when more events came than
 * arms were made, and the verdicts wait for the events of every crossed
 * arm (a device that never raises one fails the run by its timeout).
 */
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "server.h"

static void xp_srq_event(struct ib_event *ev, void *ctx)
{
	struct xp_srq_group *g = ctx;
	unsigned long flags;

	if (ev->event != IB_EVENT_SRQ_LIMIT_REACHED) {
		pr_debug("SRQ event %s\n", ib_event_msg(ev->event));
		return;
	}
	spin_lock_irqsave(&g->ev_lock, flags);
	g->events++;
	if (g->ev_pending)
		g->ev_pending--;
	else
		g->stray++;
	if (g->finish_owed && g->events >= g->ev_crossed) {
		g->finish_owed = false;
		queue_work(system_unbound_wq, &g->finish_work);
	}
	spin_unlock_irqrestore(&g->ev_lock, flags);
}

static int xp_group_post(struct xp_srq_group *g, struct xp_rslot *rs)
{
	struct ib_sge sge[XIWPERF_MAX_SGE];
	struct ib_recv_wr wr = {
		.wr_cqe = &rs->cqe,
		.sg_list = sge,
	};
	int ret;

	if (g->nsge)	/* else an Immediate Data receive, no buffer */
		wr.num_sge = xp_sge_split(sge, g->nsge, rs->map.dma, g->size,
					  g->pd->local_dma_lkey);
	ret = ib_post_srq_recv(g->srq, &wr, NULL);
	if (!ret)
		g->posted++;
	return ret;
}

/* Arm the limit; the SRQ holds at least that many receives (lock held). */
static void xp_group_arm(struct xp_srq_group *g)
{
	struct ib_srq_attr attr = { .srq_limit = g->limit };
	int ret;

	lockdep_assert_held(&g->lock);
	spin_lock_irq(&g->ev_lock);
	g->ev_pending++;
	spin_unlock_irq(&g->ev_lock);
	ret = ib_modify_srq(g->srq, &attr, IB_SRQ_LIMIT);
	if (ret) {
		pr_debug("arming the SRQ limit failed: %d\n", ret);
		spin_lock_irq(&g->ev_lock);
		g->ev_pending--;
		spin_unlock_irq(&g->ev_lock);
		g->limit = 0;	/* no more arms */
		return;
	}
	g->armed = true;
	g->arms++;
}

/*
 * Grant the credits the SRQ allows to the accepted connections that need
 * them, fewest outstanding first, and announce them (lock held).
 */
static void xp_group_grant(struct xp_srq_group *g)
{
	struct xp_sconn *d, *best;
	u64 out, best_out = 0;

	lockdep_assert_held(&g->lock);
	if (g->joined < g->qps)
		return;		/* the shares of those to come are promised */
	while (g->posted > g->granted) {
		best = NULL;
		list_for_each_entry(d, &g->members, gnode) {
			u64 has = d->share + d->reposted + d->grant;

			if (!d->live || has >= d->count)
				continue;
			out = has - d->received;
			if (!best || out < best_out) {
				best = d;
				best_out = out;
			}
		}
		if (!best)
			break;
		best->grant++;
		g->granted++;
	}
	list_for_each_entry(d, &g->members, gnode) {
		if (!d->grant)
			continue;
		mutex_lock(&d->lock);
		d->reposted += d->grant;
		d->grant = 0;
		xp_sconn_send_ctrl(d);
		mutex_unlock(&d->lock);
	}
}

/*
 * Every message of the run arrived, and the event of every crossed arm:
 * the verdicts (lock held).
 */
static void xp_group_finish(struct xp_srq_group *g)
{
	struct xp_sconn *d;
	u32 events, stray;

	lockdep_assert_held(&g->lock);
	g->done = true;
	spin_lock_irq(&g->ev_lock);
	events = g->events;
	stray = g->stray;
	spin_unlock_irq(&g->ev_lock);
	list_for_each_entry(d, &g->members, gnode) {
		mutex_lock(&d->lock);
		d->srq_arms = g->arms;
		d->srq_crossed = g->crossed;
		d->srq_events = events;
		d->srq_stray = stray;
		d->verdict_due = true;
		xp_sconn_send_ctrl(d);
		mutex_unlock(&d->lock);
	}
}

/* The event that completed the crossed arms' came after the last message. */
static void xp_group_finish_work(struct work_struct *work)
{
	struct xp_srq_group *g = container_of(work, struct xp_srq_group,
					      finish_work);

	mutex_lock(&g->lock);
	xp_group_finish(g);
	mutex_unlock(&g->lock);
}

/*
 * Every message arrived: finish now if the device has reported every arm
 * the group saw crossed, else when its last such event arrives (lock
 * held). The device raised those events before the receives completed;
 * only their delivery may still be under way.
 */
static void xp_group_last(struct xp_srq_group *g)
{
	bool now;

	lockdep_assert_held(&g->lock);
	spin_lock_irq(&g->ev_lock);
	now = g->events >= g->ev_crossed;
	g->finish_owed = !now;
	spin_unlock_irq(&g->ev_lock);
	if (now)
		xp_group_finish(g);
}

static void xp_srq_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_rslot *rs = container_of(wc->wr_cqe, struct xp_rslot, cqe);
	struct xp_srq_group *g = rs->group;
	struct xp_qp *q = wc->qp->qp_context;
	struct xp_sconn *c = container_of(q, struct xp_sconn, q);
	bool last;
	u64 seq;
	u32 i;

	mutex_lock(&g->lock);
	g->completed++;
	if (wc->status != IB_WC_SUCCESS) {
		/* Flushed with its connection: the buffer stays out. */
		xp_sconn_error(c, wc);
		goto out;
	}
	mutex_lock(&c->lock);
	seq = c->received++;
	atomic64_inc(&c->srv->received);
	xp_recv_verify(c, rs, wc, seq);
	mutex_unlock(&c->lock);
	g->received++;
	last = g->joined == g->qps && g->received == g->total;

	if (g->armed) {
		g->held[g->nheld++] = rs->idx;
		if (g->posted - g->completed < g->limit) {
			g->crossed++;
			g->armed = false;
			spin_lock_irq(&g->ev_lock);
			g->ev_crossed = g->crossed;
			spin_unlock_irq(&g->ev_lock);
		}
	} else if (xp_group_post(g, rs)) {
		goto broken;
	}
	if (!g->armed) {
		for (i = 0; i < g->nheld; i++)
			if (xp_group_post(g, &g->rslots[g->held[i]]))
				goto broken;
		g->nheld = 0;
		if (g->limit && !last && g->posted - g->granted >= g->limit)
			xp_group_arm(g);
	}
	if (last)
		xp_group_last(g);
	else
		xp_group_grant(g);
out:
	mutex_unlock(&g->lock);
	return;
broken:
	mutex_lock(&c->lock);
	xp_sconn_break(c);
	mutex_unlock(&c->lock);
	mutex_unlock(&g->lock);
}

static void xp_group_free(struct xp_srq_group *g)
{
	u32 i;

	if (g->srq)
		ib_destroy_srq(g->srq);
	/* No event can queue it any more. */
	cancel_work_sync(&g->finish_work);
	for (i = 0; g->rslots && i < g->nrecv; i++) {
		xp_unmap(&g->rslots[i].map);
		xp_buf_free(g->rslots[i].buf);
	}
	if (g->pd)
		ib_dealloc_pd(g->pd);
	kfree(g->rslots);
	kfree(g->held);
	mutex_destroy(&g->lock);
	kfree(g);
}

/**
 * xp_group_put() - drop a connection's reference to its group; the last
 *	one frees the group.
 * @g: the group.
 */
void xp_group_put(struct xp_srq_group *g)
{
	struct xp_server *srv = g->srv;
	bool last;

	mutex_lock(&srv->group_lock);
	last = !--g->refs;
	if (last)
		list_del(&g->node);
	mutex_unlock(&srv->group_lock);
	if (last)
		xp_group_free(g);
}

/* A group for @c's run: its SRQ full of receives, armed. */
static int xp_group_create(struct xp_sconn *c, struct ib_device *dev,
			   struct xp_srq_group **gp)
{
	struct ib_srq_init_attr sattr = {
		.event_handler = xp_srq_event,
		.srq_type = IB_SRQT_BASIC,
	};
	struct xp_srq_group *g;
	u64 n;
	u32 i;
	int ret = -ENOMEM;

	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	g->srv = c->srv;
	g->run_id = c->run_id;
	g->qps = c->qps;
	g->size = c->rlen;
	g->nsge = c->nsge;
	g->dev = dev;
	mutex_init(&g->lock);
	spin_lock_init(&g->ev_lock);
	INIT_WORK(&g->finish_work, xp_group_finish_work);
	INIT_LIST_HEAD(&g->members);
	n = min3(2ULL * c->depth * c->qps,
		 c->rlen ? max(1ULL, (u64)XP_SRV_RECV_BYTES * c->qps / c->rlen) :
			   U64_MAX,
		 (u64)dev->attrs.max_srq_wr);
	g->nrecv = n;
	g->limit = max(1U, g->nrecv / 4);
	g->rslots = kcalloc(g->nrecv, sizeof(*g->rslots), GFP_KERNEL);
	g->held = kcalloc(g->nrecv, sizeof(*g->held), GFP_KERNEL);
	if (!g->rslots || !g->held)
		goto err;
	g->pd = ib_alloc_pd(dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(g->pd)) {
		ret = PTR_ERR(g->pd);
		g->pd = NULL;
		goto err;
	}
	sattr.srq_context = g;
	sattr.attr.max_wr = g->nrecv;
	sattr.attr.max_sge = max(g->nsge, 1U);
	g->srq = ib_create_srq(g->pd, &sattr);
	if (IS_ERR(g->srq)) {
		ret = PTR_ERR(g->srq);
		g->srq = NULL;
		goto err;
	}
	for (i = 0; i < g->nrecv; i++) {
		struct xp_rslot *rs = &g->rslots[i];

		rs->cqe.done = xp_srq_recv_done;
		rs->group = g;
		rs->idx = i;
		if (g->size) {
			rs->buf = xp_buf_alloc(g->size);
			ret = -ENOMEM;
			if (!rs->buf)
				goto err;
			ret = xp_map(&rs->map, dev, rs->buf, g->size);
			if (ret)
				goto err;
		}
		ret = xp_group_post(g, rs);
		if (ret)
			goto err;
	}
	/* No connection takes a receive yet: it holds all of them. */
	mutex_lock(&g->lock);
	xp_group_arm(g);
	mutex_unlock(&g->lock);
	*gp = g;
	return 0;

err:
	xp_group_free(g);
	return ret;
}

/**
 * xp_group_get() - find or create the group of a connection's run and take
 *	a reference (c->group).
 * @c: the connection.
 * @dev: its device.
 * @limit: set to the device's limit on a reject for an unsupported feature.
 * @what: set to what the device cannot do then (enum xiwperf_unsupported).
 *
 * Return: 0 or an enum xiwperf_reject.
 */
int xp_group_get(struct xp_sconn *c, struct ib_device *dev, u32 *limit,
		 u32 *what)
{
	struct xp_server *srv = c->srv;
	struct xp_srq_group *g;
	struct xp_sconn *d;
	int why = 0;

	if (!dev->attrs.max_srq || !dev->attrs.max_srq_wr) {
		*what = XIWPERF_UNSUPPORTED_SRQ;
		*limit = dev->attrs.max_srq_wr;
		return XIWPERF_REJECT_UNSUPPORTED;
	}
	if (c->nsge > dev->attrs.max_srq_sge) {
		*what = XIWPERF_UNSUPPORTED_RECV_SGE;
		*limit = dev->attrs.max_srq_sge;
		return XIWPERF_REJECT_UNSUPPORTED;
	}
	mutex_lock(&srv->group_lock);
	list_for_each_entry(g, &srv->groups, node) {
		if (g->run_id != c->run_id)
			continue;
		if (g->dev != dev || g->qps != c->qps || g->size != c->rlen ||
		    g->nsge != c->nsge || g->joined == g->qps)
			why = XIWPERF_REJECT_PROTOCOL;
		mutex_lock(&g->lock);
		list_for_each_entry(d, &g->members, gnode)
			if (d->qp_index == c->qp_index)
				why = XIWPERF_REJECT_PROTOCOL;
		mutex_unlock(&g->lock);
		goto found;
	}
	if (xp_group_create(c, dev, &g)) {
		why = XIWPERF_REJECT_RESOURCES;
		goto out;
	}
	list_add_tail(&g->node, &srv->groups);
found:
	if (!why) {
		g->refs++;
		c->group = g;
	}
out:
	mutex_unlock(&srv->group_lock);
	return why;
}

/**
 * xp_group_join() - a connection is set up: it takes its share of the
 *	receives and joins its group.
 * @c: the connection (c->group is set).
 */
void xp_group_join(struct xp_sconn *c)
{
	struct xp_srq_group *g = c->group;
	u32 base = g->nrecv / g->qps;

	mutex_lock(&g->lock);
	c->share = min_t(u64, c->count,
			 base + (c->qp_index < g->nrecv % g->qps ? 1 : 0));
	g->granted += c->share;
	g->total += c->count;
	g->joined++;
	list_add_tail(&c->gnode, &g->members);
	mutex_unlock(&g->lock);
}

/**
 * xp_group_live() - a connection is accepted: credits may go to it now.
 * @c: the connection (c->group is set).
 */
void xp_group_live(struct xp_sconn *c)
{
	struct xp_srq_group *g = c->group;

	mutex_lock(&g->lock);
	c->live = true;
	xp_group_grant(g);
	mutex_unlock(&g->lock);
}
