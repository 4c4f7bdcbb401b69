// SPDX-License-Identifier: MIT
// Doorbell records of QPs (uapi/scenic_rdma.h, struct scenic_qp_dbrec): the producer indices
// the provider keeps in host memory, read when the engine runs out of WQEs, and the db_skip
// bits of the status page that tell the provider when it may leave the doorbell alone.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstring>

#include "scenic/rdma_engine.hpp"

namespace scenic::rdma {

namespace {

// The barrier between a db_skip write and the record read that follows it: with the provider's
// barrier between its record write and db_skip read, one side always sees the other's store.
void full_barrier() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// WQEs in flight before the SQ doorbell may be skipped. One is enough: its answer, or its
// retransmission timer, runs the requester, and the last packet sent always asks for an ACK.
// A WQE posted behind a request whose ACK is lost waits for that request's timer too (rung, it
// would have gone at once and its ACK would have covered both): a cost only under loss, against
// one MMIO exit per post whenever the card has caught up with the guest (4 KiB ib_send_bw:
// 2.8-5.7 Gb/s against 0.7-3.9 at two, 2026-12-02).
constexpr size_t kDbSkipMinWqes = 1;

}  // namespace

bool Engine::refresh_pi(Qp& qp, size_t offset, uint32_t& pi, uint32_t first, uint32_t oldest,
                        uint32_t size) {
    std::array<uint8_t, 4> raw{};
    ++cnt_.dbrec_reads;
    if (!host_.dma_read(qp.dbrec + offset, raw)) {
        ++cnt_.dma_errors;
        return false;
    }
    uint32_t v = 0;
    std::memcpy(&v, raw.data(), raw.size());
    if (v == pi) {
        return false;
    }
    if (v - first > oldest + size - first) {
        ++cnt_.db_ignored;  // the same check as the doorbell's
        return false;
    }
    pi = v;
    return true;
}

bool Engine::refresh_sq_pi(Qp& qp) {
    auto& r = qp.req;
    return refresh_pi(qp, offsetof(scenic_qp_dbrec, sq_pi), r.sq_pi, r.sq_next, r.oldest(),
                      qp.sq_size());
}

bool Engine::refresh_rq_pi(Qp& qp) {
    if (qp.srq) {
        return false;  // no RQ: the SRQ has its own record (srq_take)
    }
    auto& s = qp.resp;
    return refresh_pi(qp, offsetof(scenic_qp_dbrec, rq_pi), s.rq_pi, rq_first(qp), s.rq_ci,
                      qp.rq_size());
}

bool Engine::sq_record(Qp& qp) { return qp.dbrec != 0 && refresh_sq_pi(qp); }

bool Engine::sq_skip_update(Qp& qp) {
    if (qp.dbrec == 0) {
        return false;
    }
    // Requests in flight bring answers (or a timer) that run the requester, which reads the
    // record again: the provider may skip the doorbell until then.
    const bool in_flight = qp.state == kQpsRts && qp.req.pending.size() >= kDbSkipMinWqes;
    const uint32_t skip = in_flight ? qp.db_skip | SCENIC_QP_DB_SKIP_SQ
                                    : qp.db_skip & ~uint32_t{SCENIC_QP_DB_SKIP_SQ};
    if (skip == qp.db_skip) {
        return false;
    }
    write_db_skip(qp, skip);
    if (in_flight) {
        return false;
    }
    full_barrier();  // a WQE posted while the bit was still set is seen here
    return sq_record(qp);
}

bool Engine::rq_record(Qp& qp) { return qp.dbrec != 0 && refresh_rq_pi(qp); }

void Engine::write_db_skip(Qp& qp, uint32_t skip) {
    qp.db_skip = skip;
    std::array<uint8_t, 4> raw{};
    std::memcpy(raw.data(), &skip, raw.size());
    if (!host_.dma_write(qp.status_page + offsetof(scenic_qp_status, db_skip), raw)) {
        ++cnt_.dma_errors;
    }
}

void Engine::state_db_skip(Qp& qp) {
    if (qp.dbrec == 0) {
        return;
    }
    // RESET ignores the queues and ERR must flush what is posted: both need the doorbells.
    // The SQ bit survives only in RTS (sq_record sets it there).
    uint32_t skip = 0;
    if (qp.state != kQpsReset && qp.state != kQpsErr) {
        skip |= SCENIC_QP_DB_SKIP_RQ;
    }
    if (qp.state == kQpsRts) {
        skip |= qp.db_skip & SCENIC_QP_DB_SKIP_SQ;
    }
    if (skip != qp.db_skip) {
        write_db_skip(qp, skip);
    }
    if (qp.state == kQpsErr) {
        full_barrier();  // WQEs posted before the provider saw the bits clear are flushed too
        refresh_sq_pi(qp);
        refresh_rq_pi(qp);
    }
}

}  // namespace scenic::rdma
