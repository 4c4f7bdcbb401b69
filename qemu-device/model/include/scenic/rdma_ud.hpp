// SPDX-License-Identifier: MIT
// Unreliable datagram (docs/verbs-completeness.md 1): the AH table (CREATE_AH / DESTROY_AH),
// UD sends (one SEND_ONLY packet per WQE, the AH's address, DETH; complete when handed to the
// MAC or the loopback queue, no ACK) and UD receives (Q_Key check, the GRH in the first 40
// bytes of the receive buffer, CQE with the source QP). Every drop is silent and counted; UD
// never NAKs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "scenic/admin_queue.hpp"
#include "scenic/rdma_context.hpp"
#include "scenic/roce/packet.hpp"

namespace scenic::rdma {

class Engine;

// One AH table entry: the address as a packet builder wants it, and its PD.
struct AddressHandle {
    bool valid = false;
    uint32_t pdn = 0;
    roce::PathContext path;
};

class Datagram {
  public:
    explicit Datagram(Engine& e);

    CmdResult create_ah(std::span<const uint8_t, kAqSqeBytes> entry);
    CmdResult destroy_ah(std::span<const uint8_t, kAqSqeBytes> entry);
    [[nodiscard]] const AddressHandle* ah(uint32_t index) const {
        return index != 0 && index < ahs_.size() && ahs_[index].valid ? &ahs_[index] : nullptr;
    }
    void reset();

    // The SQ of a UD QP: sends (or refuses, or flushes in SQE) what is posted, bounded; the
    // caller schedules the rest when this returns false.
    bool send(Qp& qp);
    // A UD SEND_ONLY(_IMM) packet (parsed) and its frame, for the GRH.
    void receive(const roce::ParsedPacket& pkt, std::span<const uint8_t> frame);

  private:
    // One WQE at sq_next: false when it must wait (a missing translation).
    bool send_one(Qp& qp);
    void refuse(Qp& qp, uint8_t opcode, uint8_t status);
    void recv_cqe(Qp& qp, uint8_t status, uint32_t byte_len, const roce::ParsedPacket* pkt);

    Engine& e_;
    std::vector<AddressHandle> ahs_;  // indices 0 .. the highest created; at most kMaxAh
    std::vector<uint8_t> payload_;    // scratch, reused per packet
};

}  // namespace scenic::rdma
