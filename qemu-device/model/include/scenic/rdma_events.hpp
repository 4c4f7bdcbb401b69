// SPDX-License-Identifier: MIT
// The RDMA engine's events for the driver: QP errors, SQ drained, CQ errors, TLB misses and SRQ
// limits go to
// the core's asynchronous event queue (AEQ), CQ notifications to the rdma block's completion
// event queue (CEQ). Entries are built through the generated views (scenic/admin.hpp) and written
// by the shared ring writer (scenic/event_ring.hpp); a full ring drops the event and counts it.
// A TLB miss that was dropped is raised again by the TLB (rdma_tlb.hpp).
#pragma once
#include <cstdint>

#include "scenic/admin.hpp"
#include "scenic/event_ring.hpp"
#include "scenic/host.hpp"

namespace scenic::rdma {

class Events {
  public:
    Events(Host& host, EventRing& aeq, EventRing& ceq) : host_(host), aeq_(aeq), ceq_(ceq) {}
    // Each returns false when the event was dropped.
    bool qp_error(uint32_t qpn, admin::QpErr code, uint8_t syndrome = 0);
    bool sq_drained(uint32_t qpn);
    bool cq_error(uint32_t cqn, admin::CqErr code);
    bool tlb_miss(uint32_t key, uint64_t page);
    bool srq_limit(uint32_t srqn, uint32_t posted);
    bool cq_notify(uint32_t cqn);
    [[nodiscard]] uint64_t now() { return host_.now_ns(); }
    [[nodiscard]] EventRing& aeq() { return aeq_; }
    [[nodiscard]] EventRing& ceq() { return ceq_; }

  private:
    Host& host_;
    EventRing& aeq_;
    EventRing& ceq_;
};

}  // namespace scenic::rdma
