// SPDX-License-Identifier: MIT
// Completer (rxe_comp.c's role): processes what comes back to the requester (ACK, NAKs, READ
// responses, atomic ACKs) against the in-flight WQEs, completes WQEs in SQ order (status-page
// counter on success, a CQE on error), drives go-back-N (sequence NAK, implied NAK, response
// gaps), RNR retry and the retry counters, and moves the QP to ERR on fatal errors.
#pragma once

#include <cstdint>
#include <span>

#include "scenic/rdma_context.hpp"
#include "scenic/rdma_memory.hpp"
#include "scenic/roce/packet.hpp"

namespace scenic::rdma {

class Engine;

class Completer {
  public:
    explicit Completer(Engine& e) : e_(e) {}

    void receive(Qp& qp, const roce::ParsedPacket& pkt);
    // SR_SACK (docs/selective-repeat.md 5.4; rdma_completer_sr.cpp): checked, then a cumulative
    // ACK of the PSNs before its PSN and the scoreboard.
    void sack(Qp& qp, const roce::ParsedPacket& pkt);
    // Completes the oldest WQE with an error status, moves the QP to ERR (flushing the rest).
    void fail_head(Qp& qp, uint8_t status, uint8_t syndrome);
    // Response data (READ payload, atomic original value) into the WQE's local buffers: false
    // when it was dropped (TLB miss) or the WQE failed (protection, DMA).
    bool stored(Qp& qp, const SendWqe& w, uint64_t off, std::span<const uint8_t> data);
    // Completes WQEs that were refused locally once everything before them has completed.
    void complete_local_errors(Qp& qp);

  private:
    // Acknowledges every PSN before psn. False if a READ / atomic in that range has not been
    // answered: its responses were lost (implied NAK), the caller rewinds.
    bool ack_before(Qp& qp, uint32_t psn);
    void complete_ok(Qp& qp);
    void progress(Qp& qp);
    void read_response(Qp& qp, const roce::ParsedPacket& pkt);
    void atomic_ack(Qp& qp, const roce::ParsedPacket& pkt);
    void gap(Qp& qp);

    Engine& e_;
};

}  // namespace scenic::rdma
