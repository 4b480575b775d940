/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xiw's tracepoints (the "xiw" trace system, Documentation/admin.md):
 * connection endpoint state changes and the events handed to iw_cm,
 * Terminates sent and received, and
 * the requests of queue 1 (RDMA Read, the RFC 7306 atomics, the commit
 * draft's Flush, Verify and Atomic Write) as they are sent and as they
 * are taken to be served.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xiw

#if !defined(XIW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define XIW_TRACE_H

#include <linux/tracepoint.h>
#include <xiw/compat.h>

TRACE_EVENT(xiw_cep_state,
	TP_PROTO(const char *dev, const void *cep, bool active,
		 const char *from, const char *to),
	TP_ARGS(dev, cep, active, from, to),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(const void *, cep)
		__field(bool, active)
		__string(from, from)
		__string(to, to)
	),
	TP_fast_assign(
		xiw_assign_str(dev, dev);
		__entry->cep = cep;
		__entry->active = active;
		xiw_assign_str(from, from);
		xiw_assign_str(to, to);
	),
	TP_printk("%s cep %p %s %s -> %s", __get_str(dev), __entry->cep,
		  __entry->active ? "active" : "passive", __get_str(from),
		  __get_str(to))
);

TRACE_EVENT(xiw_cm_event,
	TP_PROTO(const char *dev, const void *cep, bool active,
		 const char *event, int status),
	TP_ARGS(dev, cep, active, event, status),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(const void *, cep)
		__field(bool, active)
		__string(event, event)
		__field(int, status)
	),
	TP_fast_assign(
		xiw_assign_str(dev, dev);
		__entry->cep = cep;
		__entry->active = active;
		xiw_assign_str(event, event);
		__entry->status = status;
	),
	TP_printk("%s cep %p %s %s status %d", __get_str(dev), __entry->cep,
		  __entry->active ? "active" : "passive", __get_str(event),
		  __entry->status)
);

TRACE_EVENT(xiw_terminate,
	TP_PROTO(const char *dev, u32 qpn, bool sent, u8 layer, u8 etype,
		 u8 code),
	TP_ARGS(dev, qpn, sent, layer, etype, code),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, qpn)
		__field(bool, sent)
		__field(u8, layer)
		__field(u8, etype)
		__field(u8, code)
	),
	TP_fast_assign(
		xiw_assign_str(dev, dev);
		__entry->qpn = qpn;
		__entry->sent = sent;
		__entry->layer = layer;
		__entry->etype = etype;
		__entry->code = code;
	),
	TP_printk("%s qp %u %s layer %u type %u code 0x%02x", __get_str(dev),
		  __entry->qpn, __entry->sent ? "sent" : "received",
		  __entry->layer, __entry->etype, __entry->code)
);

TRACE_EVENT(xiw_request,
	TP_PROTO(const char *dev, u32 qpn, bool responder, const char *op,
		 u32 stag, u64 to, u64 len),
	TP_ARGS(dev, qpn, responder, op, stag, to, len),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, qpn)
		__field(bool, responder)
		__string(op, op)
		__field(u32, stag)
		__field(u64, to)
		__field(u64, len)
	),
	TP_fast_assign(
		xiw_assign_str(dev, dev);
		__entry->qpn = qpn;
		__entry->responder = responder;
		xiw_assign_str(op, op);
		__entry->stag = stag;
		__entry->to = to;
		__entry->len = len;
	),
	TP_printk("%s qp %u %s %s stag 0x%08x to 0x%llx len %llu",
		  __get_str(dev), __entry->qpn,
		  __entry->responder ? "received" : "sent", __get_str(op),
		  __entry->stag, __entry->to, __entry->len)
);

#endif /* XIW_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
