// SPDX-License-Identifier: MIT
// Requester (IBA ch. 9.5, rxe_req.c's role): fetches SQ WQEs, checks them (opcode, lengths,
// lkeys), assigns PSNs, segments to the path MTU and transmits within a window of kWindowPsns
// PSNs (READ / atomics also bounded by max_rd_atomic). ACKs are coalesced across messages: the
// AckReq bit goes on the last packet of a message only when no fetched WQE follows it at once,
// and on every kAckReqEvery-th packet. Retransmission is go-back-N from a PSN: packets are
// rebuilt from the WQE context and host memory (no frame copies kept). Owns the local ACK
// timeout, the RNR wait and the TLB-miss pause of a QP's SQ.
#pragma once

#include <array>
#include <cstdint>

#include "scenic/rdma_context.hpp"
#include "scenic/roce/headers.hpp"
#include "scenic/roce/opcode.hpp"

namespace scenic::rdma {

class Engine;

// Packets of a message of `length` bytes at path MTU `pmtu` (a zero-length message is one).
[[nodiscard]] uint32_t message_packets(uint32_t length, uint32_t pmtu);
// RC opcode of packet k of n of a SEND / WRITE WQE (SCENIC_WQE_OP_*); UC adds roce::kUcBase.
[[nodiscard]] roce::Opcode message_opcode(uint8_t wqe_op, uint32_t k, uint32_t n);

// The SGEs of the UD / UC send WQE `raw` in SQ slot `slot` into `sge`: read from host memory,
// summed against raw.length and checked against the QP's PD. 0 when they are good, else the WC
// status to refuse the WQE with (a failed read also counts in dma_errors).
[[nodiscard]] uint8_t read_send_sges(Engine& e, const Qp& qp, uint64_t slot,
                                     const scenic_sq_wqe& raw,
                                     std::array<Sge, SCENIC_SQ_MAX_SGE>& sge);

class Requester {
  public:
    explicit Requester(Engine& e) : e_(e) {}

    // Doorbell, ACK progress, end of a wait: send what the QP may send now (bounded), and
    // continue later from an event if more is left.
    void kick(Qp& qp);
    // Go-back-N: transmit again from psn.
    void rewind(Qp& qp, uint32_t psn);
    // Congestion window: PSNs acknowledged (grow), or a loss (NAK, gap, timeout: shrink).
    void window_acked(Qp& qp);
    void window_loss(Qp& qp, bool timeout);
    // The QP entered RTS: PSN state from sq_psn.
    void start(Qp& qp);
    void rnr_wait(Qp& qp, uint64_t ns);
    // A TLB fill arrived: the SQ continues if it was paused on a missing translation.
    void tlb_resume(Qp& qp);
    void arm_ack_timer(Qp& qp);
    // SQD: once every message begun has completed, the QP's SQ_DRAINED event (once per SQD).
    void check_drained(Qp& qp);

    // Pauses the SQ on a missing translation until the next fill (or kTlbRetryNs).
    void wait_for_tlb(Qp& qp);
    void pace(Qp& qp, uint64_t ns);  // DCQCN pacer: resume after ns

    // Selective repeat's requester (docs/selective-repeat.md 5; rdma_requester_sr.cpp).
    // An accepted SACK at psn: the scoreboard, loss detection and resend rounds (5.4, 5.5).
    void sr_sacked(Qp& qp, uint32_t psn, const roce::SackEth& k);
    // The cumulative point moved: RTT sample, probe count (5.6).
    void sr_acked(Qp& qp);
    // The requester's window: W for a QP sending in SR, else kWindowPsns.
    [[nodiscard]] static uint32_t window_cap(const Qp& qp);

  private:
    void run(Qp& qp);
    // False when the budget ran out before the QP had nothing more it could do.
    bool run_until_blocked(Qp& qp);
    bool fetch(Qp& qp);
    bool transmit_one(Qp& qp);
    // The packet that went out without AckReq is not followed (local error, SQD): resend it
    // asking for the ACK that completes it.
    void ask_for_ack(Qp& qp);
    void on_ack_timeout(Qp& qp);
    void schedule(Qp& qp);
    [[nodiscard]] uint64_t timeout_ns(const Qp& qp) const;
    // Selective repeat (rdma_requester_sr.cpp).
    // Clears the scoreboard bits of PSNs the cumulative point has passed.
    static void sr_sync(Qp& qp);
    // PSNs sent, not acknowledged and not SACKed (5.3's pipe).
    [[nodiscard]] static int32_t sr_pipe(Qp& qp);
    // Deemed-lost PSNs, in PSN order: false when a resend could not leave now.
    bool sr_resend(Qp& qp);
    // PSN p alone, with AckReq; false when it could not leave now.
    bool sr_resend_one(Qp& qp, uint32_t p);
    // A rewound tx_psn passes PSNs the responder holds.
    static void sr_skip_sacked(Qp& qp);
    void sr_arm_probe(Qp& qp);
    void sr_on_probe(Qp& qp);
    [[nodiscard]] uint64_t sr_probe_ns(const Qp& qp) const;

    Engine& e_;
    bool resending_ = false;        // transmit_one() sends a selective resend (no window check)
    std::vector<uint8_t> payload_;  // scratch, reused per packet
};

}  // namespace scenic::rdma
