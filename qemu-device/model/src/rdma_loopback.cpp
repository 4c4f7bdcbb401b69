// SPDX-License-Identifier: MIT
#include "scenic/rdma_loopback.hpp"

#include <utility>

namespace scenic::rdma {

void Loopback::push(std::vector<uint8_t>&& frame) {
    if (q_.size() >= kDepth) {
        ++cnt_.loopback_drops;
        return;
    }
    q_.push_back(std::move(frame));
    ++cnt_.loopback_frames;
    if (!draining_) {
        schedule(0);
    }
}

void Loopback::schedule(uint64_t delay_ns) {
    if (drain_ == 0) {
        drain_ = events_.schedule_in(delay_ns, [this] {
            drain_ = 0;
            drain();
        });
    }
}

void Loopback::drain() {
    // Frames pushed while draining (the ACKs of the requests delivered here) wait for the next
    // run, kRunGapNs later: a run is bounded, and a conversation between two QPs never keeps
    // the card's timer running without returning to the host.
    draining_ = true;
    for (size_t n = kBudget; n != 0 && !q_.empty(); --n) {
        std::vector<uint8_t> f = std::move(q_.front());
        q_.pop_front();
        rx_(f);
    }
    draining_ = false;
    if (!q_.empty()) {
        schedule(kRunGapNs);
    }
}

void Loopback::reset() {
    if (drain_ != 0) {
        events_.cancel(drain_);
        drain_ = 0;
    }
    q_.clear();
}

}  // namespace scenic::rdma
