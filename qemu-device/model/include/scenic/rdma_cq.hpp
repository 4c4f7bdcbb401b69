// SPDX-License-Identifier: MIT
// CQ writer: the CQ table, CQEs into the host rings with the owner (phase) bit, overrun
// detection (AEQ CQ_ERROR, the CQ stops), and arm / notify (CEQ CQ_NOTIFY, raising the CEQ
// vector, then the CQ disarms).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "scenic/host.hpp"
#include "scenic/rdma_context.hpp"
#include "scenic/rdma_events.hpp"

namespace scenic::rdma {

class CqWriter {
  public:
    CqWriter(Host& host, Events& events, Counters& cnt) : host_(host), events_(events), cnt_(cnt) {}

    [[nodiscard]] Cq* find(uint32_t cqn) const {
        return cqn < cqs_.size() ? cqs_[cqn].get() : nullptr;
    }
    // dbrec: host address of the CQ's struct scenic_cq_dbrec, 0 for none.
    bool create(uint32_t cqn, uint64_t base, unsigned log2, uint64_t dbrec = 0);
    void destroy(uint32_t cqn) { cqs_.at(cqn).reset(); }
    void reset();

    // Writes one CQE (owner bit and flags set here). False if the CQ is gone, overrun or the DMA
    // failed. An armed CQ notifies (solicited-only: for solicited or error CQEs).
    bool post(uint32_t cqn, scenic_cqe cqe);
    // RESIZE_CQ: a RESIZE CQE (byte_len = the new ring's entries) at the old ring's producer
    // index, then the CQ continues in the new ring at index 0 with its consumer index 0.
    // Nothing changes unless kOk.
    enum class ResizeStatus : uint8_t { kOk, kNotFound, kInError, kTooSmall, kOldFull, kDmaError };
    ResizeStatus resize(uint32_t cqn, uint64_t base, unsigned log2, uint64_t dbrec);
    // A send completion that produced no CQE (the status-page counter advanced).
    void send_completion(uint32_t cqn);

    // Doorbells (CQ page).
    void set_ci(uint32_t cqn, uint32_t value);
    void arm(uint32_t cqn, uint32_t value);

  private:
    // The CQE into the slot at the producer index, owner bit last; advances it. cqe.flags is
    // left as written (with the owner bit).
    bool write_slot(Cq& cq, scenic_cqe& cqe);
    void notify(uint32_t cqn, Cq& cq);
    // The ring looks full: reads the consumer index from the record, if the CQ has one.
    void refresh_ci(Cq& cq);

    Host& host_;
    Events& events_;
    Counters& cnt_;
    std::vector<std::unique_ptr<Cq>> cqs_ = std::vector<std::unique_ptr<Cq>>(kMaxCq);
};

}  // namespace scenic::rdma
