// SPDX-License-Identifier: MIT
// Responder (rxe_resp.c's role): PSN check (one sequence NAK per gap), duplicates (re-ACK
// SEND / WRITE, re-execute READ, saved result for atomics), opcode sequence, RQ WQE
// consumption (RNR NAK when none), rkey / PD / bounds / access checks (Remote Access Error NAK,
// nothing written), receive-buffer length (Invalid Request NAK, LOC_LEN_ERR CQE), execution of
// SEND / WRITE / READ / atomics, coalesced ACKs on AckReq, READ responses. Output that must
// follow READ responses in PSN order waits in the QP's outq.
#pragma once

#include <cstdint>
#include <vector>

#include "scenic/rdma_context.hpp"
#include "scenic/rdma_memory.hpp"
#include "scenic/roce/packet.hpp"

namespace scenic::rdma {

class Engine;

class Responder {
  public:
    explicit Responder(Engine& e) : e_(e) {}

    void receive(Qp& qp, const roce::ParsedPacket& pkt);
    // A request with an RC opcode IBA reserves (no headers to parse): Invalid Request NAK at
    // the expected PSN, the usual PSN checks otherwise.
    void reserved_opcode(Qp& qp, uint32_t psn);
    // A TLB fill arrived: READ responses stalled on a miss continue.
    void tlb_resume(Qp& qp);

  private:
    void sequence_gap(Qp& qp);
    void duplicate(Qp& qp, const roce::ParsedPacket& pkt);
    void execute(Qp& qp, const roce::ParsedPacket& pkt);
    static bool payload_fits_pmtu(const Qp& qp, const roce::ParsedPacket& pkt);
    bool do_send(Qp& qp, const roce::ParsedPacket& pkt);
    bool do_write(Qp& qp, const roce::ParsedPacket& pkt);
    bool do_read(Qp& qp, const roce::ParsedPacket& pkt, bool dup);
    bool do_atomic(Qp& qp, const roce::ParsedPacket& pkt);
    // The outcome of a WRITE / atomic on responder memory: true when it was done; else the
    // packet is RNR-NAKed (TLB miss) or NAKed (protection, DMA).
    bool remote_access_ok(Qp& qp, MemStatus st);
    void tlb_miss_rnr(Qp& qp);
    bool take_rwqe(Qp& qp);
    void recv_cqe(Qp& qp, uint8_t status, uint8_t opcode, uint32_t byte_len,
                  const roce::ParsedPacket* pkt);
    void ack(Qp& qp, uint32_t psn);
    void rnr_nak(Qp& qp);
    void nak(Qp& qp, roce::NakCode code, uint32_t ev);
    void emit(Qp& qp, RespJob job);
    void run(Qp& qp);
    bool send_job(Qp& qp, RespJob& job);  // false: job not finished
    void stall_for_tlb(Qp& qp);
    void schedule(Qp& qp);

    Engine& e_;
    std::vector<uint8_t> payload_;  // scratch
};

}  // namespace scenic::rdma
