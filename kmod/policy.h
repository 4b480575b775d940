/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connection policy from the module parameters (policy.c).
 */
#ifndef XIW_POLICY_H
#define XIW_POLICY_H

#include <linux/types.h>

/**
 * enum xiw_crc_policy - when xiw asks for MPA CRC32c (the C bit)
 * @XIW_CRC_OFF: never; CRC only when the peer asks
 * @XIW_CRC_PREFERRED: as initiator; a responder follows the initiator
 * @XIW_CRC_REQUIRED: as initiator and as responder
 */
enum xiw_crc_policy { XIW_CRC_OFF, XIW_CRC_PREFERRED, XIW_CRC_REQUIRED };

enum xiw_crc_policy xiw_policy_crc(void);
u8 xiw_policy_mpa_rev(void);
bool xiw_policy_markers(void);
bool xiw_policy_p2p(void);
unsigned int xiw_policy_rtr(u8 pref[3]);
u8 xiw_policy_rtr_supported(void);
unsigned int xiw_policy_timeout_ms(void);

#endif /* XIW_POLICY_H */
