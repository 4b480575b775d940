// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The provider's send ring code (provider/sq.c) through
// provider_sq_harness.c, its ring in plain memory: what it writes for each
// operation, what it refuses before the kernel would, the queue's bound,
// batches of ibv_wr_*() published whole or not at all, the doorbell, and
// the 2^32 wrap.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "provider_sq_harness.h"

namespace {

struct HarnessDeleter {
    void operator()(xh *h) const { xh_free(h); }
};
using Harness = std::unique_ptr<xh, HarnessDeleter>;

Harness make(uint32_t slots = 8, uint32_t size = 8, uint32_t start = 0)
{
    Harness h(xh_new(slots, size, start));
    EXPECT_NE(h, nullptr);
    return h;
}

ibv_send_wr send_wr(ibv_sge *sge, int n, uint64_t id)
{
    ibv_send_wr wr{};
    wr.wr_id = id;
    wr.sg_list = sge;
    wr.num_sge = n;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    return wr;
}

TEST(ProviderSq, EachOperationsFieldsLandInItsEntry)
{
    auto h = make();
    ibv_sge sge[2] = {{0x1000, 16, 7}, {0x2000, 32, 8}};
    ibv_send_wr w = send_wr(sge, 2, 42), a{}, *bad = nullptr;
    bool bell = true;

    w.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    w.imm_data = htobe32(0x1234);
    w.wr.rdma.remote_addr = 0xabc0;
    w.wr.rdma.rkey = 99;
    w.next = &a;
    uint64_t orig = 0;
    ibv_sge asge{reinterpret_cast<uintptr_t>(&orig), 8, 9};
    a.wr_id = 43;
    a.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
    a.sg_list = &asge;
    a.num_sge = 1;
    a.wr.atomic.remote_addr = 0x40;
    a.wr.atomic.rkey = 5;
    a.wr.atomic.compare_add = 3;
    a.wr.atomic.swap = 4;
    ASSERT_EQ(xh_post(h.get(), &w, &bad, &bell), 0);
    EXPECT_FALSE(bell);
    EXPECT_EQ(xh_head(h.get()), 2u);
    const xiw_usqe *e = xh_entry(h.get(), 0);
    EXPECT_EQ(e->wr_id, 42u);
    EXPECT_EQ(e->opcode, XIW_USQE_RDMA_WRITE_WITH_IMM);
    EXPECT_EQ(e->flags, XIW_USQE_SIGNALED);
    EXPECT_EQ(e->ex, static_cast<uint32_t>(htobe32(0x1234)));
    EXPECT_EQ(e->remote_addr, 0xabc0u);
    EXPECT_EQ(e->rkey, 99u);
    EXPECT_EQ(e->num_sge, 2u);
    EXPECT_EQ(e->sge[1].addr, 0x2000u);
    EXPECT_EQ(e->sge[1].length, 32u);
    EXPECT_EQ(e->sge[1].lkey, 8u);
    e = xh_entry(h.get(), 1);
    EXPECT_EQ(e->opcode, XIW_USQE_ATOMIC_CMP_AND_SWP);
    EXPECT_EQ(e->atomic.compare_add, 3u);
    EXPECT_EQ(e->atomic.swap, 4u);
    EXPECT_EQ(e->rkey, 5u);
    EXPECT_EQ(e->reserved0, 0u);
}

TEST(ProviderSq, InlineDataIsGatheredIntoTheEntry)
{
    auto h = make();
    char a[] = "abc", b[] = "defgh";
    ibv_sge sge[2] = {{reinterpret_cast<uintptr_t>(a), 3, 0},
                      {reinterpret_cast<uintptr_t>(b), 5, 0}};
    ibv_send_wr w = send_wr(sge, 2, 1), *bad = nullptr;
    bool bell;

    w.send_flags |= IBV_SEND_INLINE;
    ASSERT_EQ(xh_post(h.get(), &w, &bad, &bell), 0);
    const xiw_usqe *e = xh_entry(h.get(), 0);
    EXPECT_EQ(e->flags & XIW_USQE_INLINE, XIW_USQE_INLINE);
    EXPECT_EQ(e->num_sge, 0u);
    EXPECT_EQ(e->length, 8u);
    EXPECT_EQ(std::memcmp(e->inline_data, "abcdefgh", 8), 0);
}

TEST(ProviderSq, WhatTheKernelWouldRefuseIsRefusedBeforeAnythingIsRead)
{
    auto h = make();
    char big[XIW_USQE_INLINE_MAX + 1] = {};
    // An address no gathering may touch: a sink, never read.
    ibv_sge sink{1, 8, 0}, one{reinterpret_cast<uintptr_t>(big), 8, 0};
    ibv_sge two[2] = {one, one};
    ibv_sge toobig{reinterpret_cast<uintptr_t>(big), sizeof(big), 0};
    struct Case {
        const char *what;
        ibv_wr_opcode op;
        ibv_sge *sge;
        int n;
        unsigned flags;
        int err;
    } cases[] = {
        {"inline Read", IBV_WR_RDMA_READ, &sink, 1, IBV_SEND_INLINE, EINVAL},
        {"inline atomic", IBV_WR_ATOMIC_FETCH_AND_ADD, &sink, 1,
         IBV_SEND_INLINE, EINVAL},
        {"Send with Immediate with data", IBV_WR_SEND_WITH_IMM, &one, 1, 0,
         EINVAL},
        {"atomic of 4 octets", IBV_WR_ATOMIC_CMP_AND_SWP, &toobig, 1, 0,
         EINVAL},
        {"Read of two SGEs", IBV_WR_RDMA_READ, two, 2, 0, EINVAL},
        {"inline beyond the maximum", IBV_WR_SEND, &toobig, 1,
         IBV_SEND_INLINE, EINVAL},
        {"an unknown flag", IBV_WR_SEND, &one, 1, IBV_SEND_IP_CSUM, EINVAL},
        {"local invalidation", IBV_WR_LOCAL_INV, nullptr, 0, 0, EINVAL},
        {"seven SGEs", IBV_WR_SEND, two, 7, 0, EINVAL},
    };
    ibv_send_wr good = send_wr(&one, 1, 1);
    for (const Case &c : cases) {
        ibv_send_wr w = send_wr(c.sge, c.n, 2), *bad = nullptr;
        bool bell;

        if (c.op == IBV_WR_ATOMIC_CMP_AND_SWP)
            toobig.length = 4;
        w.opcode = c.op;
        w.send_flags |= c.flags;
        good.next = &w;
        uint32_t before = xh_head(h.get());
        EXPECT_EQ(xh_post(h.get(), &good, &bad, &bell), c.err) << c.what;
        EXPECT_EQ(bad, &w) << c.what;
        // The work request before it is posted, it is not.
        EXPECT_EQ(xh_head(h.get()), before + 1) << c.what;
        toobig.length = sizeof(big);
        xh_set_tail(h.get(), xh_head(h.get()));
    }
}

TEST(ProviderSq, AFullQueueTakesNothingUntilTheTailMoves)
{
    auto h = make(8, 6);
    ibv_sge sge{0x1000, 8, 1};
    ibv_send_wr w = send_wr(&sge, 1, 1), *bad = nullptr;
    bool bell;

    for (int i = 0; i < 6; i++)
        ASSERT_EQ(xh_post(h.get(), &w, &bad, &bell), 0) << i;
    EXPECT_EQ(xh_post(h.get(), &w, &bad, &bell), ENOMEM);
    EXPECT_EQ(bad, &w);
    EXPECT_EQ(xh_head(h.get()), 6u);
    xh_set_tail(h.get(), 2);
    EXPECT_EQ(xh_post(h.get(), &w, &bad, &bell), 0);
    EXPECT_EQ(xh_post(h.get(), &w, &bad, &bell), 0);
    EXPECT_EQ(xh_post(h.get(), &w, &bad, &bell), ENOMEM);
    EXPECT_EQ(xh_head(h.get()), 8u);
}

TEST(ProviderSq, ABatchIsPublishedWholeOrNotAtAll)
{
    auto h = make();
    ibv_qp_ex *q = xh_qpx(h.get());
    char text[] = "0123456789abcdef";
    uint64_t value = 0x0102030405060708ull;

    ibv_wr_start(q);
    q->wr_id = 1;
    q->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(q, 7, 0x100);
    ibv_wr_set_inline_data(q, text, 16);
    q->wr_id = 2;
    ibv_wr_atomic_write(q, 7, 0x200, &value);
    ASSERT_EQ(ibv_wr_complete(q), 0);
    EXPECT_EQ(xh_head(h.get()), 2u);
    EXPECT_EQ(xh_entry(h.get(), 1)->opcode, XIW_USQE_ATOMIC_WRITE);
    EXPECT_EQ(xh_entry(h.get(), 1)->atomic_write.value, value);
    EXPECT_EQ(xh_entry(h.get(), 0)->length, 16u);

    // A Read with inline data in the middle: nothing of the batch.
    ibv_wr_start(q);
    ibv_wr_send(q);
    ibv_wr_set_sge(q, 1, 0x1000, 8);
    ibv_wr_rdma_read(q, 7, 0x100);
    ibv_wr_set_inline_data(q, text, 8);
    ibv_wr_send(q);
    ibv_wr_set_sge(q, 1, 0x1000, 8);
    EXPECT_EQ(ibv_wr_complete(q), EINVAL);
    EXPECT_EQ(xh_head(h.get()), 2u);

    // Aborted: nothing; the next batch starts where the head is.
    ibv_wr_start(q);
    ibv_wr_send(q);
    ibv_wr_set_sge(q, 1, 0x1000, 8);
    ibv_wr_abort(q);
    EXPECT_EQ(xh_head(h.get()), 2u);

    // More than the queue holds: ENOMEM, nothing.
    ibv_wr_start(q);
    for (int i = 0; i < 9; i++) {
        ibv_wr_send(q);
        ibv_wr_set_sge(q, 1, 0x1000, 8);
    }
    EXPECT_EQ(ibv_wr_complete(q), ENOMEM);
    EXPECT_EQ(xh_head(h.get()), 2u);
}

TEST(ProviderSq, DirectVerbsBuildTheirEntries)
{
    auto h = make();
    ibv_qp_ex *q = xh_qpx(h.get());
    xiwdv_qp_ex *dv = xh_dv(h.get());
    const uint8_t expect[4] = {1, 2, 3, 4};

    ASSERT_NE(dv, nullptr);
    ibv_wr_start(q);
    xiwdv_wr_flush(dv, 3, 0x1000, 4096, XIWDV_FLUSH_PERSISTENT,
                   XIWDV_FLUSH_RANGE);
    xiwdv_wr_verify(dv, 3, 0x1000, 64, expect, sizeof(expect));
    ibv_wr_set_sge(q, 2, 0x5000, XIWDV_VERIFY_HASH_MAX);
    xiwdv_wr_masked_fetch_add(dv, 3, 0x40, 1, 0x8000800080008000ull);
    ibv_wr_set_sge(q, 2, 0x6000, 8);
    xiwdv_wr_masked_cmp_swap(dv, 3, 0x40, 1, 2, 3, 4);
    ibv_wr_set_sge(q, 2, 0x6000, 8);
    ASSERT_EQ(ibv_wr_complete(q), 0);
    const xiw_usqe *f = xh_entry(h.get(), 0), *v = xh_entry(h.get(), 1);
    EXPECT_EQ(f->opcode, XIW_USQE_FLUSH);
    EXPECT_EQ(f->length, 4096u);
    EXPECT_EQ(f->flush.type, XIW_USQE_FLUSH_PERSISTENT);
    EXPECT_EQ(f->num_sge, 0u);
    EXPECT_EQ(v->opcode, XIW_USQE_VERIFY);
    EXPECT_EQ(v->length, 64u);  // the range, kept by the SGE's setter
    EXPECT_EQ(v->verify.expect_len, 4u);
    EXPECT_EQ(std::memcmp(v->verify_data.expect, expect, 4), 0);
    EXPECT_EQ(v->verify_data.sge.addr, 0x5000u);
    EXPECT_EQ(xh_entry(h.get(), 2)->atomic.compare_add_mask,
              0x8000800080008000ull);
    EXPECT_EQ(xh_entry(h.get(), 3)->atomic.swap_mask, 4u);

    // A Flush of more than 2^32 - 1 octets, a hash beyond 64: refused.
    ibv_wr_start(q);
    xiwdv_wr_flush(dv, 3, 0, 1ull << 32, XIWDV_FLUSH_GLOBAL,
                   XIWDV_FLUSH_RANGE);
    EXPECT_EQ(ibv_wr_complete(q), EINVAL);
    ibv_wr_start(q);
    xiwdv_wr_verify(dv, 3, 0, 8, expect, XIWDV_VERIFY_HASH_MAX + 1);
    EXPECT_EQ(ibv_wr_complete(q), EINVAL);
    EXPECT_EQ(xh_head(h.get()), 4u);
}

TEST(ProviderSq, TheDoorbellIsRungOnlyWhenTheKernelAsks)
{
    auto h = make();
    ibv_sge sge{0x1000, 8, 1};
    ibv_send_wr w = send_wr(&sge, 1, 1), *bad = nullptr;
    bool bell = true;

    ASSERT_EQ(xh_post(h.get(), &w, &bad, &bell), 0);
    EXPECT_FALSE(bell);
    xh_set_flags(h.get(), XIW_USQ_DOORBELL);
    ASSERT_EQ(xh_post(h.get(), &w, &bad, &bell), 0);
    EXPECT_TRUE(bell);
    int before = xh_doorbells();
    ibv_qp_ex *q = xh_qpx(h.get());
    ibv_wr_start(q);
    ibv_wr_send(q);
    ibv_wr_set_sge(q, 1, 0x1000, 8);
    ASSERT_EQ(ibv_wr_complete(q), 0);
    EXPECT_EQ(xh_doorbells(), before + 1);
}

TEST(ProviderSq, IndexesWrapAt2To32)
{
    auto h = make(8, 8, 0xfffffffeu);
    ibv_sge sge{0x1000, 8, 1};
    bool bell;

    for (uint64_t i = 0; i < 8; i++) {
        ibv_send_wr w = send_wr(&sge, 1, i), *bad = nullptr;
        ASSERT_EQ(xh_post(h.get(), &w, &bad, &bell), 0) << i;
    }
    EXPECT_EQ(xh_head(h.get()), 6u);
    for (uint32_t i = 0; i < 8; i++)
        EXPECT_EQ(xh_entry(h.get(), 0xfffffffeu + i)->wr_id, i);
    ibv_send_wr w = send_wr(&sge, 1, 9), *bad = nullptr;
    EXPECT_EQ(xh_post(h.get(), &w, &bad, &bell), ENOMEM);
}

}  // namespace
