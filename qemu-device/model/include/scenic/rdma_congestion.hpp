// SPDX-License-Identifier: MIT
// Congestion control: DCQCN (Zhu et al. 2015) over RoCE v2 CNPs (annex A17.9.3).
//   Notification point: a CE-marked request makes the card send a CNP (BTH opcode 0x81, BECN,
//     PSN 0) to the requester QP, at most one per QP per kCnpIntervalNs.
//   Reaction point: a CNP for a QP in RTS cuts its rate with hw-rtl's DCQCN rules
//     (scenic::dp::Dcqcn: cut_rate, alpha_on_cnp, alpha_decay, increase), an alpha-decay timer,
//     a rate-increase timer and a byte counter raise it again (EventQueue timers, virtual time);
//     the requester paces the QP with a token bucket at the current rate. A QP that never saw a
//     CNP, or that recovered to line rate, is not paced at all.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scenic/rdma_context.hpp"

namespace scenic::rdma {

class Engine;

class Congestion {
  public:
    explicit Congestion(Engine& e) : e_(e) {}

    // NP: an accepted RC request for qp arrived CE-marked.
    void congestion_experienced(Qp& qp);
    // RP: a CNP for qp (the engine checked that qp is in RTS).
    void cnp_received(Qp& qp);
    // The QP entered RTS: line rate, not paced.
    static void start(Qp& qp);

    // Pacer: ns until qp may transmit its next packet (0: now).
    [[nodiscard]] uint64_t pace_delay(Qp& qp);
    // qp put a frame of `bytes` on the wire (tokens, byte counter).
    void sent(Qp& qp, size_t bytes);
    [[nodiscard]] static bool paced(const Qp& qp) { return qp.cc.limited; }

  private:
    void refill(Qp& qp);
    void raise(Qp& qp);
    void arm_timers(Qp& qp);
    void alpha_tick(Qp& qp, uint64_t epoch);
    void rate_tick(Qp& qp, uint64_t epoch);

    Engine& e_;
};

}  // namespace scenic::rdma
