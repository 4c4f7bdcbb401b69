// SPDX-License-Identifier: MIT
// Responder (rxe_resp.c's role): source check (IP addresses / GIDs of the QP's address
// vector), PSN check (one sequence NAK per gap), duplicates (re-ACK SEND / WRITE, rate-limited;
// replay READ / atomics the responder remembers, drop the rest), opcode sequence, RQ WQE
// consumption (RNR NAK when none), rkey / PD / bounds / access checks (Remote Access Error NAK,
// nothing written), receive-buffer length (Invalid Request NAK, LOC_LEN_ERR CQE),
// max_dest_rd_atomic (Invalid Request NAK), execution of SEND / WRITE / READ / atomics,
// coalesced ACKs on AckReq, READ responses at the PMTU latched per request. Output that must
// follow READ responses in PSN order waits in the QP's outq, bounded by kMaxRespJobs.
#pragma once

#include <cstdint>
#include <vector>

#include "scenic/rdma_context.hpp"
#include "scenic/rdma_memory.hpp"
#include "scenic/roce/packet.hpp"

namespace scenic::rdma {

class Engine;

// A packet of a connected QP comes from the address its address vector names and is sent to
// the one it names as ours (IPv4 addresses; IPv6: the GIDs). Shared with the completer.
bool path_matches(const Qp& qp, const roce::ParsedPacket& pkt);

class Responder {
  public:
    explicit Responder(Engine& e) : e_(e) {}

    // `sr`: the packet as it came when it is an SR data packet (SRETH, RETH on every WRITE
    // packet); pkt is then its RC view (rdma_sr).
    void receive(Qp& qp, const roce::ParsedPacket& pkt, const roce::ParsedPacket* sr = nullptr);
    // A request with an RC opcode IBA reserves (no extended headers parsed): Invalid Request
    // NAK at the expected PSN, the usual source and PSN checks otherwise.
    void reserved_opcode(Qp& qp, const roce::ParsedPacket& pkt);
    // A TLB fill arrived: READ responses stalled on a miss continue.
    void tlb_resume(Qp& qp);
    // The QP's SCU slot takes payload again: stalled READ responses continue.
    void scu_resume(Qp& qp) { run(qp); }
    // The receive WQE at rq_ci (its SGEs in qp.resp.rwqe_*; rwqe_nsge kRwqeBad when it is
    // malformed): false when the RQ is empty. Shared with the datagram block.
    bool take_rwqe(Qp& qp);
    // The receive CQE of the WQE at rq_ci (which it consumes). Shared with the UC block.
    void recv_cqe(Qp& qp, uint8_t status, uint8_t opcode, uint32_t byte_len,
                  const roce::ParsedPacket* pkt);

  private:
    // An incoming request packet's payload through the QP's SCU slot (docs/scu.md 3), after
    // the PSN checks and before placement. False when the packet is not placed: the slot held
    // it (RNR NAK, the requester sends it again) or the SCU broke the 1:1 rule (the QP fails).
    // On true, `data` is what to place and `skip` says the SCU consumed it (drop).
    bool scu_rx(Qp& qp, const roce::ParsedPacket& pkt, uint32_t offset,
                std::span<const uint8_t>& data, bool& skip);
    void sequence_gap(Qp& qp);
    void duplicate(Qp& qp, const roce::ParsedPacket& pkt);
    // A duplicate SEND / WRITE: true when it gets a re-ACK (the first after progress, then one
    // per kReAckEvery duplicates or kReAckIntervalNs).
    bool reack_due(Qp& qp);
    // The remembered READ / atomic whose PSNs hold psn (the last max_dest_rd_atomic), or null.
    [[nodiscard]] static const RdResource* find_resource(const Qp& qp, uint32_t psn);
    static void remember(Qp& qp, const RdResource& r);
    void replay_read(Qp& qp, const RdResource& r, uint32_t psn);
    // A new READ / atomic may start: false after an Invalid Request NAK (max_dest_rd_atomic
    // exceeded) or when the output queue is full (dropped unexecuted, the requester retries).
    bool rd_atomic_room(Qp& qp);
    void execute(Qp& qp, const roce::ParsedPacket& pkt);
    // execute() without the ACK: true when a SEND / WRITE packet was done and asks for one.
    bool execute_packet(Qp& qp, const roce::ParsedPacket& pkt);
    // Selective repeat (docs/selective-repeat.md 4; rdma_responder_sr.cpp), in state SACKING.
    void sr_receive(Qp& qp, const roce::ParsedPacket& pkt, const roce::ParsedPacket* sr, int32_t d);
    // An SR WRITE packet at its own RETH va + midx * PMTU. In order (d == 0) a failed check is
    // answered as today (NAK, RNR NAK); out of order the packet is dropped unmarked.
    bool sr_place_write(Qp& qp, const roce::ParsedPacket& pkt, const roce::ParsedPacket& sr,
                        bool in_order);
    // After epsn moved in order: over the placed PSNs behind it, then ACK or SACK (4.6).
    void sr_advanced(Qp& qp, bool had_gap, bool ack_due, uint32_t psn);
    void sack(Qp& qp);
    static bool payload_fits_pmtu(const Qp& qp, const roce::ParsedPacket& pkt);
    bool do_send(Qp& qp, const roce::ParsedPacket& pkt);
    bool do_write(Qp& qp, const roce::ParsedPacket& pkt);
    bool do_read(Qp& qp, const roce::ParsedPacket& pkt);
    bool do_atomic(Qp& qp, const roce::ParsedPacket& pkt);
    // The outcome of a WRITE / atomic on responder memory: true when it was done; else the
    // packet is RNR-NAKed (TLB miss) or NAKed (protection, DMA).
    bool remote_access_ok(Qp& qp, MemStatus st);
    void tlb_miss_rnr(Qp& qp);
    void ack(Qp& qp, uint32_t psn);
    void rnr_nak(Qp& qp);
    void nak(Qp& qp, roce::NakCode code, uint32_t ev);
    // Queues output (and runs the queue): false when the queue was full (counted).
    bool emit(Qp& qp, RespJob job);
    void run(Qp& qp);
    bool send_job(Qp& qp, RespJob& job);  // false: job not finished
    void stall_for_tlb(Qp& qp);
    void schedule(Qp& qp);

    Engine& e_;
    std::vector<uint8_t> payload_;  // scratch
};

}  // namespace scenic::rdma
