// SPDX-License-Identifier: MIT
// The card's transmit arbiter: QPs share the wire round robin (paper section 5.3's arbitration,
// hw-rtl's scenic_rr_arbiter). At most kCardWindowBytes of new PSNs (PSNs x PMTU) are in flight
// over all QPs;
// a QP that wants to send a new PSN when the card's window is full, or while others wait,
// queues and is granted its turn in FIFO order as ACKs free room. Retransmissions are never
// held back (they replace PSNs already counted). A QP that is the only one with PSNs in flight,
// with none waiting, has kSoloWindowBytes: a turn-sized window would make one stream stop and
// wait for every ACK (16 packets at PMTU 4096); a second QP shrinks it back to kCardWindowBytes.
//
// Without it each QP sent its own window: 128 QPs x 16 PSNs overflowed the wire (the host's UDP
// buffers on the emulated rig), the QPs that lost their tail waited out ACK timeouts at the
// minimum window while one QP kept the wire (Jain's fairness index 0.02 at 128 QPs).
#pragma once

#include <cstdint>
#include <deque>

#include "scenic/rdma_context.hpp"

namespace scenic::rdma {

class Engine;

class TxArbiter {
  public:
    explicit TxArbiter(Engine& e) : e_(e) {}

    // May qp put a new PSN on the wire now? If not, it is queued (once) for a grant.
    bool may_send_new(Qp& qp);
    // The QP's PSNs in flight may have changed (sent, acknowledged, QP error): the card total
    // follows, and waiting QPs are granted while there is room.
    void account(Qp& qp);
    // The QP's requester state is about to be dropped (reset, destroy).
    void forget(Qp& qp);
    void reset();

    [[nodiscard]] uint32_t in_flight() const { return total_; }  // bytes
    // The card's window that applies to qp now, bytes.
    [[nodiscard]] uint32_t window(const Qp& qp) const;

  private:
    void grant();

    Engine& e_;
    uint32_t total_ = 0;
    uint32_t charged_qps_ = 0;      // QPs with PSNs in flight (charged != 0)
    std::deque<uint32_t> waiting_;  // QPNs, FIFO
    bool granting_ = false;
};

}  // namespace scenic::rdma
