// SPDX-License-Identifier: GPL-2.0
/*
 * What the parser fuzzing suites share at run time (fuzz_kunit.h): the
 * seed and the number of random inputs, kernel parameters of xiw_kunit
 * declared here and nowhere else.
 */
#include <kunit/test.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/random.h>

#include "fuzz_kunit.h"

static ulong fuzz_seed = 10;
module_param(fuzz_seed, ulong, 0444);
MODULE_PARM_DESC(fuzz_seed, "Seed of the parser fuzzing; 0 draws one");

uint xiw_fuzz_iters = 100000;
module_param_named(fuzz_iters, xiw_fuzz_iters, uint, 0444);
MODULE_PARM_DESC(fuzz_iters, "Random inputs per parser fuzzing case");

/* The seed of this run: fuzz_seed, or the one drawn for 0. */
static u64 fuzz_run_seed;

int xiw_fuzz_suite_init(struct kunit_suite *suite)
{
	/* Drawn once: every suite of the run replays with the same seed. */
	if (!fuzz_run_seed)
		fuzz_run_seed = fuzz_seed ?: get_random_u64();
	return 0;
}

void xiw_fuzz_start(struct kunit *test, struct rnd_state *r)
{
	prandom_seed_state(r, fuzz_run_seed);
	kunit_info(test, "seed %llu, %u random inputs (replay: xiw_kunit.fuzz_seed=%llu)\n",
		   fuzz_run_seed, xiw_fuzz_iters, fuzz_run_seed);
}
