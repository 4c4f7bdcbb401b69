// SPDX-License-Identifier: MIT
// Selective repeat between SCENIC cards (docs/selective-repeat.md): the in-band handshake of
// section 2 (SR_HELLO / SR_HELLO_ACK, per direction), the SR data format of section 3.1 on the
// requester's packets, and the responder's checks of it. What is built and what is not: the
// status line of docs/selective-repeat.md.
#pragma once

#include <cstdint>
#include <optional>

#include "scenic/rdma_context.hpp"
#include "scenic/roce/packet.hpp"

namespace scenic::rdma {

class Engine;

class SelectiveRepeat {
  public:
    explicit SelectiveRepeat(Engine& e) : e_(e) {}

    // The QP entered RTS from RTR: with its attribute on, the first hello leaves now.
    void start(Qp& qp);
    // A vendor opcode to qp (the card parses them): hellos, acks and SR data packets of a QP
    // that has not negotiated are dropped and counted here. Returns the packet as the RC engine
    // executes it in order (RC opcode, RETH only where the RC opcode has one), or nothing when
    // it was consumed or dropped.
    std::optional<roce::ParsedPacket> receive(Qp& qp, const roce::ParsedPacket& pkt);
    // The requester's packet of WQE w, index k of the message: SR opcode and SRETH, RETH on
    // every WRITE packet.
    static void to_sr_format(const SendWqe& w, uint32_t k, roce::Transport& t);
    // A WQE the requester fetched begins now: its format and RSN.
    static void begin(Qp& qp, SendWqe& w);

  private:
    void send_hello(Qp& qp);
    void on_hello_timer(Qp& qp);
    void hello(Qp& qp, const roce::ParsedPacket& pkt);
    void hello_ack(Qp& qp, const roce::ParsedPacket& pkt);
    // SRETH checks of 3.1 that need the QP's PMTU.
    [[nodiscard]] static bool sreth_ok(const Qp& qp, const roce::ParsedPacket& pkt);
    [[nodiscard]] static bool hello_ok(const roce::SrHello& h);
    [[nodiscard]] uint32_t nonce(const Qp& qp) const;

    Engine& e_;
};

}  // namespace scenic::rdma
