// SPDX-License-Identifier: MIT
#include "scenic/rdma_events.hpp"

#include "scenic/regs.hpp"
#include "uapi/scenic_rdma.h"

namespace scenic::rdma {

bool EventFifo::push(uint32_t type, uint32_t id, uint32_t arg0, uint32_t arg1, uint32_t arg2) {
    if (count_ >= capacity_) {
        ++lost_;
        return false;
    }
    Event& e = ring_[(head_ + count_) % kDepth];
    e.word = type << SCENIC_RDMA_EV_TYPE_SHIFT | (id & SCENIC_RDMA_EV_ID_MASK);
    e.args = {arg0, arg1, arg2};
    ++count_;
    if (has_vector_) {
        host_.msix_notify(regs::kVecRdma);
    }
    return true;
}

uint32_t EventFifo::pop() {
    if (count_ == 0) {
        latched_ = {};
        return 0;
    }
    const Event& e = ring_[head_];
    latched_ = e.args;
    head_ = (head_ + 1) % kDepth;
    --count_;
    return e.word;
}

void EventFifo::reset() {
    head_ = 0;
    count_ = 0;
    latched_ = {};
    lost_ = 0;
}

}  // namespace scenic::rdma
