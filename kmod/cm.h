/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connection manager: iw_cm provider over in-kernel TCP sockets created in
 * the network namespace of the device's netdev, with the MPA handshake.
 */
#ifndef XIW_CM_H
#define XIW_CM_H

#include <rdma/iw_cm.h>

struct xiw_cep;
struct xiw_device;
struct xiw_qp;

int xiw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int xiw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int xiw_reject(struct iw_cm_id *id, const void *pdata, u8 len);
int xiw_create_listen(struct iw_cm_id *id, int backlog);
int xiw_destroy_listen(struct iw_cm_id *id);

void xiw_cep_abort(struct xiw_cep *cep);
void xiw_cep_shutdown(struct xiw_cep *cep);
void xiw_cep_close(struct xiw_cep *cep);
void xiw_cep_get(struct xiw_cep *cep);
void xiw_cep_put(struct xiw_cep *cep);

void xiw_cm_device_gone(struct xiw_device *xdev);
int xiw_cm_init(void);
void xiw_cm_exit(void);

#endif /* XIW_CM_H */
