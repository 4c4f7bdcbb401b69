// SPDX-License-Identifier: MIT
#include "scenic/rdma_cq.hpp"

#include <array>
#include <cstddef>
#include <cstring>
#include <span>

namespace scenic::rdma {

namespace {
constexpr size_t kFlagsOffset = offsetof(scenic_cqe, flags);
static_assert(sizeof(scenic_cqe) == SCENIC_CQE_BYTES);
}  // namespace

bool CqWriter::create(uint32_t cqn, uint64_t base, unsigned log2, uint64_t dbrec) {
    auto& slot = cqs_.at(cqn);
    if (slot) {
        return false;
    }
    slot = std::make_unique<Cq>();
    slot->base = base;
    slot->log2 = log2;
    slot->dbrec = dbrec;
    return true;
}

void CqWriter::reset() {
    for (auto& c : cqs_) {
        c.reset();
    }
}

bool CqWriter::post(uint32_t cqn, scenic_cqe cqe) {
    Cq* cq = find(cqn);
    if (!cq || cq->overrun) {
        return false;
    }
    const uint32_t entries = 1u << cq->log2;
    if (((cq->pi - cq->ci) & SCENIC_DB_CQ_CI_MASK) >= entries) {
        refresh_ci(*cq);
    }
    if (((cq->pi - cq->ci) & SCENIC_DB_CQ_CI_MASK) >= entries) {
        // The consumer has not freed a slot: the CQE would overwrite an unread one.
        cq->overrun = true;
        ++cnt_.cq_overruns;
        events_.cq_error(cqn, admin::CqErr::kOverrun);
        return false;
    }
    if (!write_slot(*cq, cqe)) {
        return false;
    }
    const uint8_t flags = cqe.flags;
    const bool wanted =
        !cq->solicited_only || (flags & SCENIC_CQE_F_SOLICITED) != 0 || cqe.status != kWcSuccess;
    if (cq->armed && wanted) {
        notify(cqn, *cq);
    }
    return true;
}

bool CqWriter::write_slot(Cq& cq, scenic_cqe& cqe) {
    const uint32_t entries = 1u << cq.log2;
    const uint8_t owner = ((cq.pi >> cq.log2) & 1) ^ 1;
    const uint8_t flags = static_cast<uint8_t>((cqe.flags & ~SCENIC_CQE_F_OWNER) | owner);
    cqe.flags = static_cast<uint8_t>(flags ^ SCENIC_CQE_F_OWNER);  // not yet valid
    const uint64_t addr = cq.base + uint64_t{cq.pi & (entries - 1)} * SCENIC_CQE_BYTES;
    std::array<uint8_t, SCENIC_CQE_BYTES> raw{};
    std::memcpy(raw.data(), &cqe, raw.size());
    // The body first, then the flags byte with the owner bit: the consumer never sees a valid
    // owner bit over a partial CQE.
    if (!host_.dma_write(addr, raw) ||
        !host_.dma_write(addr + kFlagsOffset, std::span<const uint8_t>(&flags, 1))) {
        ++cnt_.dma_errors;
        return false;
    }
    cqe.flags = flags;
    ++cq.pi;
    ++cnt_.cqe_written;
    return true;
}

CqWriter::ResizeStatus CqWriter::resize(uint32_t cqn, uint64_t base, unsigned log2,
                                        uint64_t dbrec) {
    Cq* cq = find(cqn);
    if (!cq) {
        return ResizeStatus::kNotFound;
    }
    if (cq->overrun) {
        return ResizeStatus::kInError;
    }
    const uint32_t old_entries = 1u << cq->log2;
    const auto outstanding = [cq] { return (cq->pi - cq->ci) & SCENIC_DB_CQ_CI_MASK; };
    // The record may be ahead of the last consumer index the card saw.
    if (outstanding() > (1u << log2) || outstanding() >= old_entries) {
        refresh_ci(*cq);
    }
    // IBA: the new size holds the completions not yet consumed.
    if (outstanding() > (1u << log2)) {
        return ResizeStatus::kTooSmall;
    }
    // The RESIZE CQE needs a free slot in the old ring.
    if (outstanding() >= old_entries) {
        return ResizeStatus::kOldFull;
    }
    scenic_cqe cqe{};
    cqe.opcode = SCENIC_CQE_OP_RESIZE;
    cqe.byte_len = 1u << log2;
    if (!write_slot(*cq, cqe)) {
        return ResizeStatus::kDmaError;
    }
    // Every later CQE goes to the new ring from index 0 (phase 1); arming is kept.
    cq->base = base;
    cq->log2 = log2;
    cq->dbrec = dbrec;
    cq->pi = 0;
    cq->ci = 0;
    return ResizeStatus::kOk;
}

void CqWriter::send_completion(uint32_t cqn) {
    Cq* cq = find(cqn);
    if (cq && cq->armed && !cq->solicited_only) {
        notify(cqn, *cq);
    }
}

void CqWriter::set_ci(uint32_t cqn, uint32_t value) {
    if (Cq* cq = find(cqn)) {
        cq->ci = value & SCENIC_DB_CQ_CI_MASK;
    }
}

void CqWriter::arm(uint32_t cqn, uint32_t value) {
    Cq* cq = find(cqn);
    if (!cq) {
        return;
    }
    cq->ci = value & SCENIC_DB_CQ_CI_MASK;
    cq->armed = true;
    cq->solicited_only = (value & SCENIC_DB_CQ_ARM_SOLICITED) != 0;
    // CQEs already past the consumer index: notify now, or the wake-up would be lost.
    if (!cq->solicited_only && ((cq->pi - cq->ci) & SCENIC_DB_CQ_CI_MASK) != 0) {
        notify(cqn, *cq);
    }
}

void CqWriter::refresh_ci(Cq& cq) {
    if (cq.dbrec == 0) {
        return;
    }
    std::array<uint8_t, 4> raw{};
    ++cnt_.dbrec_reads;
    if (!host_.dma_read(cq.dbrec + offsetof(scenic_cq_dbrec, ci), raw)) {
        ++cnt_.dma_errors;
        return;
    }
    uint32_t ci = 0;
    std::memcpy(&ci, raw.data(), raw.size());
    ci &= SCENIC_DB_CQ_CI_MASK;
    // A consumer index only moves forward, and never past the CQEs written.
    if (((ci - cq.ci) & SCENIC_DB_CQ_CI_MASK) > ((cq.pi - cq.ci) & SCENIC_DB_CQ_CI_MASK)) {
        ++cnt_.db_ignored;
        return;
    }
    cq.ci = ci;
}

void CqWriter::notify(uint32_t cqn, Cq& cq) {
    cq.armed = false;
    events_.cq_notify(cqn);
}

}  // namespace scenic::rdma
