// SPDX-License-Identifier: MIT
// The RDMA engine: the blocks of the RoCE v2 RC transport and the state they share.
//   Memory     MR table, lkey / rkey checks, TLB translation, DMA (rdma_memory)
//   Tlb        on-card TLB, hw-rtl twin (rdma_tlb)
//   CqWriter   CQ table, CQEs, arm / notify (rdma_cq)
//   Events     AEQ / CEQ entries for the driver (rdma_events, event_ring)
//   Requester  SQ side: fetch, segmentation, PSNs, go-back-N, timers (rdma_requester)
//   Completer  ACK / NAK / response processing, send completions (rdma_completer)
//   Responder  request execution, ACK / NAK / READ responses (rdma_responder)
//   Congestion DCQCN: CNPs for CE-marked requests, rate cuts, pacing (rdma_congestion)
//   Loopback   frames to the card's own MAC / GIDs turn around to the RX path (rdma_loopback)
//   Datagram   UD QPs: AH table, UD sends and receives (rdma_ud)
//   SRQs       shared receive queues: table, commands, doorbells, limit (rdma_srq.cpp)
//   UcTransport UC QPs: SEND / WRITE without ACKs, message drops on gaps (rdma_uc)
// This file: the QP table, admin commands (rdma_commands.cpp), doorbells, RX dispatch, QP state
// changes with flush, and frame transmission.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "scenic/admin_queue.hpp"
#include "scenic/config.hpp"
#include "scenic/event_queue.hpp"
#include "scenic/event_ring.hpp"
#include "scenic/host.hpp"
#include "scenic/rdma_completer.hpp"
#include "scenic/rdma_congestion.hpp"
#include "scenic/rdma_context.hpp"
#include "scenic/rdma_cq.hpp"
#include "scenic/rdma_events.hpp"
#include "scenic/rdma_loopback.hpp"
#include "scenic/rdma_memory.hpp"
#include "scenic/rdma_requester.hpp"
#include "scenic/rdma_responder.hpp"
#include "scenic/rdma_sr.hpp"
#include "scenic/rdma_tlb.hpp"
#include "scenic/rdma_tx_arbiter.hpp"
#include "scenic/rdma_uc.hpp"
#include "scenic/rdma_ud.hpp"
#include "scenic/roce/packet.hpp"
#include "scenic/scu.hpp"

namespace scenic::rdma {

class Engine {
  public:
    // aeq: the core's asynchronous event queue (QP / CQ errors, SQ drained, TLB misses).
    Engine(const Config& config, Host& host, EventQueue& events, EventRing& aeq);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // One admin command of the rdma group (docs/admin-queue.md 5): the 128-byte submission
    // entry and the completion's 24-byte result (written only on success). Checks in the
    // documented order; a refused command changes nothing.
    CmdResult command(std::span<const uint8_t, kAqSqeBytes> entry,
                      std::span<uint8_t, kAqResultBytes> result);
    // Doorbell BAR write (offset inside the BAR).
    void doorbell(uint64_t offset, uint64_t value, unsigned size);
    // A RoCE v2 frame the prefilter steered to the engine. Returns false, without counting it,
    // for a frame to QP 1 (GSI): the driver runs QP 1 in software on the fallback path, so the
    // ETH block puts the frame in the RX ring.
    bool receive(std::span<const uint8_t> frame);
    void reset();

    [[nodiscard]] Counters& counters() { return cnt_; }
    [[nodiscard]] const Counters& counters() const { return cnt_; }
    [[nodiscard]] Events& events() { return events_out_; }
    // The rdma block's completion event queue (CEQ_* registers).
    [[nodiscard]] EventRing& ceq() { return ceq_; }
    // An AEQ OVERFLOW was written, or the AEQ can take events again: the TLB raises its pending
    // misses again and the QPs that stopped retrying a missing page resume.
    void aeq_overflowed();
    // A miss event can reach the driver now; while not, a QP paused on a missing page waits
    // without a retry timer (docs/admin-queue.md 4.3).
    [[nodiscard]] bool miss_deliverable() { return events_out_.aeq().can_deliver(); }
    [[nodiscard]] Qp* qp(uint32_t qpn) const {
        return qpn < qps_.size() ? qps_[qpn].get() : nullptr;
    }
    [[nodiscard]] Srq* srq(uint32_t srqn) const {
        return srqn < srqs_.size() ? srqs_[srqn].get() : nullptr;
    }
    // The next receive WQE of an SRQ for a QP (its record read when the SRQ looks empty): its
    // index in idx, the SRQ's consumer index advanced and the limit checked. False: empty.
    bool srq_take(Srq& srq, uint32_t& idx);

    // ---- shared by the blocks
    Host& host() { return host_; }
    Memory& mem() { return mem_; }
    CqWriter& cqs() { return cqs_; }
    Requester& requester() { return req_; }
    Completer& completer() { return comp_; }
    Responder& responder() { return resp_; }
    Congestion& congestion() { return cc_; }
    Datagram& datagram() { return ud_; }
    UcTransport& uc() { return uc_; }
    SelectiveRepeat& sr() { return sr_; }
    [[nodiscard]] const Config& config() const { return config_; }
    TxArbiter& arbiter() { return arb_; }
    [[nodiscard]] const Loopback& loopback() const { return loop_; }
    [[nodiscard]] uint32_t arbiter_in_flight() const { return arb_.in_flight(); }
    [[nodiscard]] uint64_t now() { return host_.now_ns(); }

    // Builds and sends one packet of qp (BTH dest_qp, pkey, path filled in here): to the wire,
    // or through the loopback when the path leads to the card itself. Returns the frame's
    // length (0: not sent).
    size_t send(Qp& qp, roce::Transport& t, std::span<const uint8_t> payload);
    // The same for a packet whose BTH and path are complete (UD: the AH's path).
    size_t send_frame(const roce::PathContext& path, const roce::Transport& t,
                      std::span<const uint8_t> payload);
    // A UD QP's local send error: RTS / SQD -> SQE (the RQ keeps working).
    void enter_sqe(Qp& qp);
    // Runs fn(qp) after delay_ns if the QP still exists then (same generation), in the QP's
    // slot of that kind: an event of the same kind still pending is cancelled.
    void defer(Qp& qp, QpTimer kind, uint64_t delay_ns, std::function<void(Qp&)> fn);
    // Cancels every pending event of the QP (RESET, destroy).
    void cancel_timers(Qp& qp);
    // Frees the QPs destroyed during the current call into the card. Called when the outermost
    // entry point returns, so that no QP is freed while a caller on the stack still uses it.
    void collect();
    // The card moves the QP to ERR: status page, AEQ QP_ERROR (ev != kQpErrNone), flush.
    void enter_error(Qp& qp, uint32_t ev);
    // SQ completions (status-page counter; CQE for errors and flushes).
    void complete_send_ok(Qp& qp);
    void complete_send_err(Qp& qp, uint32_t idx, uint8_t opcode, uint8_t status, uint8_t syndrome);
    // Flush WQEs of a QP in ERR (bounded; continues from an event).
    void flush(Qp& qp);
    // Retires a QP (destroy, reset): out of the table, its events cancelled, freed by collect().
    void retire(std::unique_ptr<Qp>& slot);
    // Doorbell records (rdma_dbrec.cpp). The requester has used every WQE it knew of: true
    // when the SQ record gave more.
    bool sq_record(Qp& qp);
    // The requester stopped: sets or clears the SQ bit of db_skip; true when clearing it
    // revealed WQEs posted while it was set (the requester must run again).
    bool sq_skip_update(Qp& qp);
    // The responder needs a receive WQE and has none: true when the RQ record gave more.
    bool rq_record(Qp& qp);

    // Per-SCU completion counters (docs/scu.md 4.4): op in the status page's order.
    enum class ScuOp : uint8_t { kRemoteWrite, kRemoteRead, kRemoteSend, kRecvWrite, kRecvSend };
    using ScuCompletion = std::function<void(unsigned scu, ScuOp op)>;
    void set_scu_completion(ScuCompletion f) { scu_completion_ = std::move(f); }
    void scu_completed(const Qp& qp, ScuOp op) {
        if (scu_completion_) {
            scu_completion_(qp.scu, op);
        }
    }

    // The payload path through the QP's SCU slot (docs/scu.md 3), set by the device; empty:
    // every QP bypasses. scu_pass() gives the slot one packet of qp; on kDone and kDropped
    // `payload` then names the SCU's output, valid until the next pass of that direction.
    using ScuPassFn = std::function<scu::Pass(unsigned slot, const scu::Meta&,
                                              std::span<const uint8_t>, std::vector<uint8_t>&)>;
    void set_scu_pass(ScuPassFn f) { scu_pass_ = std::move(f); }
    // After a TLB_FILL: the SCU slots' memory ports retry what missed (docs/scu.md 2.3).
    void set_tlb_filled(std::function<void()> f) { tlb_filled_ = std::move(f); }
    scu::Pass scu_pass(const Qp& qp, const scu::Meta& m, std::span<const uint8_t>& payload);
    // A requester or READ responder the slot held (its scu_wait set): run again by
    // scu_resumed() of its slot.
    void scu_hold(Qp& qp);
    // The slot takes payload again (a load ended, the SCU woke).
    void scu_resumed(unsigned slot);

  private:
    // A valid frame with an opcode of the RC range that IBA reserves, to an RC QP that
    // receives: true when the responder took it (Invalid Request NAK).
    bool reserved_rc_request(const roce::ParsedPacket& pkt);
    CmdResult command_qp(uint32_t qpn, Qp*& q) const;
    CmdResult create_cq(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult destroy_cq(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult resize_cq(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult query_cq(std::span<const uint8_t, kAqSqeBytes> e, std::span<uint8_t, 32> cqe);
    CmdResult create_qp(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult modify_qp(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult query_qp(std::span<const uint8_t, kAqSqeBytes> e, std::span<uint8_t, 32> cqe);
    CmdResult query_qp_cc(std::span<const uint8_t, kAqSqeBytes> e, std::span<uint8_t, 32> cqe);
    CmdResult destroy_qp(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult reg_mr(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult dereg_mr(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult rereg_mr(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult alloc_mw(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult dealloc_mw(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult tlb_fill(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult create_srq(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult modify_srq(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult query_srq(std::span<const uint8_t, kAqSqeBytes> e, std::span<uint8_t, 32> cqe);
    CmdResult destroy_srq(std::span<const uint8_t, kAqSqeBytes> e);
    CmdResult command_srq(uint32_t srqn, Srq*& s) const;
    // SRQ doorbell page: a producer index at most a ring ahead of the consumer index.
    void srq_doorbell(uint32_t srqn, uint64_t reg, uint32_t v, unsigned size);
    // The SRQ's CREATE_QP fields (srq flag, srqn) checked; s: the SRQ, null without the flag.
    CmdResult create_qp_srq(std::span<const uint8_t, kAqSqeBytes> e, Srq*& s) const;
    CmdResult fill_translations(uint32_t key, uint64_t page, std::span<const uint64_t> dma);
    void set_state(Qp& qp, uint32_t state);
    void write_status_state(Qp& qp);
    void write_status_completed(Qp& qp);  // the send-completion counter, sq_completed
    // Reads a producer index from the QP's record into pi; true when it moved. A value behind
    // first (the next WQE the card fetches) or more than size WQEs past oldest (the oldest the
    // card still holds) is ignored and counted.
    bool refresh_pi(Qp& qp, size_t offset, uint32_t& pi, uint32_t first, uint32_t oldest,
                    uint32_t size);
    bool refresh_sq_pi(Qp& qp);
    // A new SQ producer index is in [sq_next, oldest + size] (modulo 2^32): never behind the
    // WQEs the card fetched (the flush would then walk ~2^32 slots), never a ring ahead.
    [[nodiscard]] static bool sq_pi_ok(const Qp& qp, uint32_t v) {
        const RequesterState& r = qp.req;
        return v - r.sq_next <= r.oldest() + qp.sq_size() - r.sq_next;
    }
    // The RQ's: never behind the receive WQE in use, never a ring ahead of rq_ci.
    [[nodiscard]] static uint32_t rq_first(const Qp& qp) {
        return qp.resp.rq_ci + (qp.resp.have_rwqe ? 1 : 0);
    }
    [[nodiscard]] static bool rq_pi_ok(const Qp& qp, uint32_t v) {
        const uint32_t first = rq_first(qp);
        return v - first <= qp.resp.rq_ci + qp.rq_size() - first;
    }
    bool refresh_rq_pi(Qp& qp);
    void write_db_skip(Qp& qp, uint32_t skip);
    // db_skip for the QP's new state (and, entering ERR, the records' WQEs to flush).
    void state_db_skip(Qp& qp);
    void reset_qp_queues(Qp& qp);
    void receive_cnp(const roce::ParsedPacket& pkt);

    const Config& config_;
    Host& host_;
    EventQueue& events_;
    Counters cnt_;
    EventRing ceq_;
    Events events_out_;
    Tlb tlb_;
    Memory mem_;
    CqWriter cqs_;
    Requester req_;
    Completer comp_;
    Responder resp_;
    Congestion cc_;
    SelectiveRepeat sr_;
    TxArbiter arb_;
    Loopback loop_;
    Datagram ud_;
    UcTransport uc_;
    std::vector<std::unique_ptr<Qp>> qps_ = std::vector<std::unique_ptr<Qp>>(kMaxQp);
    std::vector<std::unique_ptr<Srq>> srqs_ = std::vector<std::unique_ptr<Srq>>(kMaxSrq);
    std::vector<std::unique_ptr<Qp>> retired_;  // destroyed, freed by collect()
    ScuCompletion scu_completion_;
    ScuPassFn scu_pass_;
    std::function<void()> tlb_filled_;
    std::array<std::vector<uint8_t>, scu::kDirs> scu_out_;
    std::vector<uint32_t> scu_waiting_;  // QPNs held by their slot, each at most once
    uint64_t next_generation_ = 1;
};

}  // namespace scenic::rdma
