// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the connection policy: RTR preference lists (as netlink
 * and the rtr module parameter give them) and how a device's settings and
 * the module parameters make a connection's policy.
 */
#include <kunit/test.h>

#include "policy.h"
#include "rdmap.h"

#define KINDS(a, b, c)	((a) | (b) << 8 | (c) << 16)

static void policy_rtr_lists(struct kunit *test)
{
	static const u32 good[] = {
		XIW_RTR_KIND_READ,
		KINDS(XIW_RTR_KIND_WRITE, XIW_RTR_KIND_READ, XIW_RTR_KIND_SEND),
		KINDS(XIW_RTR_KIND_SEND, XIW_RTR_KIND_READ, 0),
	};
	static const u32 bad[] = {
		0,						/* none */
		KINDS(XIW_RTR_KIND_SEND, XIW_RTR_KIND_SEND, 0),	/* twice */
		KINDS(XIW_RTR_KIND_SEND, 0, XIW_RTR_KIND_READ),	/* a gap */
		XIW_RTR_KIND_MAX + 1,				/* no kind */
		KINDS(1, 2, 3) | XIW_RTR_KIND_SEND << 24,	/* a fourth */
		0xff00,						/* none first */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		KUNIT_EXPECT_TRUE_MSG(test, xiw_policy_rtr_list_valid(good[i]),
				      "0x%x", good[i]);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_FALSE_MSG(test, xiw_policy_rtr_list_valid(bad[i]),
				       "0x%x", bad[i]);
}

static void policy_rtr_parse(struct kunit *test)
{
	u32 list = 0x55;

	/* What "echo" writes to the parameter: a newline after it. */
	KUNIT_EXPECT_EQ(test, xiw_policy_rtr_parse("send\n", &list), 0);
	KUNIT_EXPECT_EQ(test, list, XIW_RTR_KIND_SEND);
	KUNIT_EXPECT_EQ(test, xiw_policy_rtr_parse(" read,write,send ", &list),
			0);
	KUNIT_EXPECT_EQ(test, list, KINDS(XIW_RTR_KIND_READ, XIW_RTR_KIND_WRITE,
					  XIW_RTR_KIND_SEND));
	/* Refusals leave the list as it was. */
	KUNIT_EXPECT_EQ(test, xiw_policy_rtr_parse("none", &list), -EINVAL);
	KUNIT_EXPECT_EQ(test, xiw_policy_rtr_parse("read,read", &list),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xiw_policy_rtr_parse("read,", &list), -EINVAL);
	KUNIT_EXPECT_EQ(test, xiw_policy_rtr_parse("", &list), -EINVAL);
	KUNIT_EXPECT_EQ(test, xiw_policy_rtr_parse("fetch", &list), -EINVAL);
	KUNIT_EXPECT_EQ(test, xiw_policy_rtr_parse("send,write,read,send",
						   &list), -EINVAL);
	KUNIT_EXPECT_EQ(test, list, KINDS(XIW_RTR_KIND_READ, XIW_RTR_KIND_WRITE,
					  XIW_RTR_KIND_SEND));
}

/* All default: the module parameters, at their own defaults here. */
static void policy_defaults_are_the_parameters(struct kunit *test)
{
	struct xiw_conn_config cfg = {}, now;
	struct xiw_conn_policy pol;

	xiw_policy_resolve(&cfg, &pol);
	KUNIT_EXPECT_EQ(test, pol.crc, XIW_CRC_PREFERRED);
	KUNIT_EXPECT_EQ(test, pol.mpa_rev, 2);
	KUNIT_EXPECT_FALSE(test, pol.markers);
	KUNIT_EXPECT_FALSE(test, pol.p2p);
	KUNIT_ASSERT_EQ(test, pol.n_rtr, 3);
	KUNIT_EXPECT_EQ(test, pol.rtr[0], XIW_RTR_WRITE);
	KUNIT_EXPECT_EQ(test, pol.rtr[1], XIW_RTR_READ);
	KUNIT_EXPECT_EQ(test, pol.rtr[2], XIW_RTR_SEND);
	KUNIT_EXPECT_EQ(test, xiw_policy_rtr_supported(&pol),
			XIW_RTR_WRITE | XIW_RTR_READ | XIW_RTR_SEND);
	xiw_policy_settings(&pol, &now);
	KUNIT_EXPECT_EQ(test, now.rtr, KINDS(XIW_RTR_KIND_WRITE,
					     XIW_RTR_KIND_READ,
					     XIW_RTR_KIND_SEND));
	KUNIT_EXPECT_EQ(test, now.crc, XIW_CRC_PREFERRED);
	KUNIT_EXPECT_EQ(test, now.markers, XIW_SWITCH_OFF);
	KUNIT_EXPECT_EQ(test, now.mpa_rev, 2);
	KUNIT_EXPECT_EQ(test, now.p2p, XIW_SWITCH_OFF);
}

static void policy_settings_win_over_the_parameters(struct kunit *test)
{
	struct xiw_conn_config cfg = {
		.crc = XIW_CRC_OFF, .markers = XIW_SWITCH_ON, .mpa_rev = 2,
		.p2p = XIW_SWITCH_ON,
		.rtr = KINDS(XIW_RTR_KIND_READ, XIW_RTR_KIND_SEND, 0),
	};
	struct xiw_conn_config now;
	struct xiw_conn_policy pol;

	xiw_policy_resolve(&cfg, &pol);
	KUNIT_EXPECT_EQ(test, pol.crc, XIW_CRC_OFF);
	KUNIT_EXPECT_TRUE(test, pol.markers);
	KUNIT_EXPECT_TRUE(test, pol.p2p);
	KUNIT_ASSERT_EQ(test, pol.n_rtr, 2);
	KUNIT_EXPECT_EQ(test, pol.rtr[0], XIW_RTR_READ);
	KUNIT_EXPECT_EQ(test, pol.rtr[1], XIW_RTR_SEND);
	xiw_policy_settings(&pol, &now);
	KUNIT_EXPECT_EQ(test, now.rtr, cfg.rtr);
	KUNIT_EXPECT_EQ(test, now.markers, XIW_SWITCH_ON);
	KUNIT_EXPECT_EQ(test, now.p2p, XIW_SWITCH_ON);

	/* Peer-to-peer needs revision 2: with 1 it is off in effect. */
	cfg.mpa_rev = 1;
	xiw_policy_resolve(&cfg, &pol);
	KUNIT_EXPECT_EQ(test, pol.mpa_rev, 1);
	KUNIT_EXPECT_FALSE(test, pol.p2p);

	cfg.markers = XIW_SWITCH_OFF;
	cfg.crc = XIW_CRC_REQUIRED;
	xiw_policy_resolve(&cfg, &pol);
	KUNIT_EXPECT_FALSE(test, pol.markers);
	KUNIT_EXPECT_EQ(test, pol.crc, XIW_CRC_REQUIRED);
}

static struct kunit_case xiw_policy_cases[] = {
	KUNIT_CASE(policy_rtr_lists),
	KUNIT_CASE(policy_rtr_parse),
	KUNIT_CASE(policy_defaults_are_the_parameters),
	KUNIT_CASE(policy_settings_win_over_the_parameters),
	{}
};

static struct kunit_suite xiw_policy_suite = {
	.name = "xiw_policy",
	.test_cases = xiw_policy_cases,
};

kunit_test_suite(xiw_policy_suite);
