// SPDX-License-Identifier: MIT
// Unreliable connected (docs/verbs-completeness.md 6): the RC message format without ACKs.
// Sends: SEND and RDMA WRITE (with and without immediate) segmented at the path MTU under the
// UC opcodes (0x20..0x2b), no AckReq, no window, no timer, no retransmission; a WQE completes
// when its last packet has left (MAC or loopback queue). READ and atomics are refused at the
// WQE (LOC_QP_OP_ERR, the SQ goes to SQE as UD's). Receives: one message at a time in PSN order;
// a PSN gap, a packet that does not continue the message, a missing receive WQE, a receive that
// does not fit, an rkey failure or a missing translation drop the message in progress silently
// (counted; the receive WQE is kept) and the responder waits for the next FIRST / ONLY.
#pragma once

#include <cstdint>
#include <vector>

#include "scenic/rdma_context.hpp"
#include "scenic/roce/packet.hpp"

namespace scenic::rdma {

class Engine;

class UcTransport {
  public:
    explicit UcTransport(Engine& e) : e_(e) {}

    // The SQ of a UC QP: one packet per step, bounded; false when more is left to send.
    bool send(Qp& qp);
    // A UC request packet for qp (a UC QP able to receive; P_Key checked by the caller).
    void receive(Qp& qp, const roce::ParsedPacket& pkt);

  private:
    // The next packet of the WQE at sq_next: false when it must wait (missing translation).
    bool send_packet(Qp& qp);
    void refuse(Qp& qp, uint8_t opcode, uint8_t status);
    // Drops the message in progress (and this packet) and counts it.
    void drop(Qp& qp);
    bool receive_send(Qp& qp, const roce::ParsedPacket& pkt);
    bool receive_write(Qp& qp, const roce::ParsedPacket& pkt);

    Engine& e_;
    std::vector<uint8_t> payload_;  // scratch, reused per packet
};

}  // namespace scenic::rdma
