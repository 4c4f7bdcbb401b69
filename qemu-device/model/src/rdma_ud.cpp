// SPDX-License-Identifier: MIT
#include "scenic/rdma_ud.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "scenic/rdma_av.hpp"
#include "scenic/rdma_engine.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::rdma {

namespace {

using admin::AqStatus;

constexpr uint32_t kControlledQkey = 0x80000000u;  // IBA: a WQE Q_Key with this bit: the QP's
constexpr uint32_t kQpnMask = 0x00ffffffu;
constexpr size_t kGrhBytes = SCENIC_UD_GRH_BYTES;
constexpr size_t kGrhIpv4Offset = 20;  // RoCE v2 IPv4: 20 zero bytes, then the IPv4 header

template <size_t N>
CmdResult refuse_cmd(AqStatus status, const std::array<admin::FieldDef, N>& fields,
                     std::string_view name) {
    return {status, field_offset(fields, name)};
}

}  // namespace

Datagram::Datagram(Engine& e) : e_(e) {}

// The table grows up to the highest index created (at most kMaxAh entries): creating and
// resetting the card costs nothing for the AHs a driver never made.
void Datagram::reset() { ahs_.clear(); }

CmdResult Datagram::create_ah(std::span<const uint8_t, kAqSqeBytes> entry) {
    const admin::AqCreateAh<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqCreateAhFields;
    if (v.ah() == 0 || v.ah() >= kMaxAh) {
        return refuse_cmd(AqStatus::kBadIndex, f, "ah");
    }
    if (v.ah() >= ahs_.size()) {
        ahs_.resize(v.ah() + 1);
    }
    if (ahs_[v.ah()].valid) {
        return refuse_cmd(AqStatus::kBusy, f, "ah");
    }
    AddressHandle a;
    a.valid = true;
    a.pdn = v.pdn();
    path_from_av(v, a.path);
    a.path.src_mac = e_.config().mac;
    ahs_[v.ah()] = a;
    return {};
}

CmdResult Datagram::destroy_ah(std::span<const uint8_t, kAqSqeBytes> entry) {
    const admin::AqDestroyAh<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqDestroyAhFields;
    if (v.ah() == 0 || v.ah() >= kMaxAh) {
        return refuse_cmd(AqStatus::kBadIndex, f, "ah");
    }
    if (v.ah() >= ahs_.size() || !ahs_[v.ah()].valid) {
        return refuse_cmd(AqStatus::kNotFound, f, "ah");
    }
    // The engine reads an entry only while it builds a packet, inside one call into the card:
    // no WQE still refers to it once this command runs.
    ahs_[v.ah()] = AddressHandle{};
    return {};
}

bool Datagram::send(Qp& qp) {
    auto& r = qp.req;
    for (uint32_t budget = kTxBudget; budget != 0; --budget) {
        if (r.tlb_wait) {
            return true;
        }
        if (r.sq_next == r.sq_pi && !e_.sq_record(qp)) {
            return true;
        }
        if (qp.state == kQpsSqe) {
            // IBA: work requests posted while the SQ is in error complete flushed.
            uint8_t op = 0;
            const uint64_t slot =
                qp.sq_base + uint64_t{r.sq_next & (qp.sq_size() - 1)} * SCENIC_SQ_WQE_BYTES;
            if (!e_.host().dma_read(slot, std::span<uint8_t>(&op, 1))) {
                ++e_.counters().dma_errors;
            }
            e_.complete_send_err(qp, r.sq_next, op, kWcFlushErr, 0);
            ++r.sq_next;
            continue;
        }
        if (qp.state != kQpsRts || !send_one(qp)) {
            return true;  // SQD: nothing new begins (and nothing is in flight)
        }
    }
    return false;
}

void Datagram::refuse(Qp& qp, uint8_t opcode, uint8_t status) {
    // A local error completes the WQE and puts the SQ in SQE; the RQ keeps working (IBA 10.3.1).
    e_.complete_send_err(qp, qp.req.sq_next, opcode, status, 0);
    ++qp.req.sq_next;
    e_.enter_sqe(qp);
}

bool Datagram::send_one(Qp& qp) {
    auto& r = qp.req;
    const uint64_t slot =
        qp.sq_base + uint64_t{r.sq_next & (qp.sq_size() - 1)} * SCENIC_SQ_WQE_BYTES;
    std::array<uint8_t, 64> hdr{};
    if (!e_.host().dma_read(slot, hdr)) {
        ++e_.counters().dma_errors;
        refuse(qp, 0, kWcLocQpOpErr);
        return true;
    }
    scenic_sq_wqe raw{};
    std::memcpy(&raw, hdr.data(), hdr.size());
    const bool inl = (raw.flags & SCENIC_WQE_F_INLINE) != 0;
    const AddressHandle* a = ah(raw.ud.ah);
    // In the documented order: opcode, inline AV (kernel QPs only: none yet), AH and its PD,
    // SGE count / inline length, then the SGEs.
    if ((raw.opcode != SCENIC_WQE_OP_SEND && raw.opcode != SCENIC_WQE_OP_SEND_IMM) ||
        (raw.flags & SCENIC_WQE_F_AV_INLINE) != 0 || a == nullptr || a->pdn != qp.pdn ||
        raw.num_sge > SCENIC_SQ_MAX_SGE || (inl && raw.length > SCENIC_MAX_INLINE)) {
        refuse(qp, raw.opcode, kWcLocQpOpErr);
        return true;
    }
    std::array<Sge, SCENIC_SQ_MAX_SGE> sge{};
    unsigned nsge = 0;
    if (!inl) {
        nsge = raw.num_sge;
        if (const uint8_t st = read_send_sges(e_, qp, slot, raw, sge); st != 0) {
            refuse(qp, raw.opcode, st);
            return true;
        }
    }
    if (raw.length > qp.pmtu) {
        // IBA C10-93.1.1 (rxe does the same): longer than the MTU, nothing is sent and the
        // WQE completes successfully.
        ++e_.counters().ud_tx_oversize;
        ++r.sq_next;
        e_.complete_send_ok(qp);
        return true;
    }
    payload_.resize(raw.length);
    if (inl) {
        if (raw.length != 0 && !e_.host().dma_read(slot + 64, payload_)) {
            ++e_.counters().dma_errors;
            refuse(qp, raw.opcode, kWcLocQpOpErr);
            return true;
        }
    } else {
        switch (e_.mem().gather(std::span(sge).first(nsge), qp.pdn, 0, payload_)) {
            case MemStatus::kOk:
                break;
            case MemStatus::kMiss:
                e_.requester().wait_for_tlb(qp);  // the same WQE is read again after the fill
                return false;
            case MemStatus::kProt:
            case MemStatus::kDma:
                refuse(qp, raw.opcode, kWcLocProtErr);
                return true;
        }
    }
    const uint32_t dest_qpn = raw.dest_qpn & kQpnMask;
    roce::Transport t;
    const bool imm = raw.opcode == SCENIC_WQE_OP_SEND_IMM;
    t.bth.opcode =
        static_cast<uint8_t>(imm ? roce::Opcode::kUdSendOnlyImm : roce::Opcode::kUdSendOnly);
    t.bth.se = (raw.flags & SCENIC_WQE_F_SOLICITED) != 0;
    t.bth.psn = r.next_psn;
    t.bth.dest_qp = dest_qpn;
    t.bth.pkey = qp.pkey;
    const uint32_t qkey = (raw.ud.qkey & kControlledQkey) != 0 ? qp.qkey : raw.ud.qkey;
    t.deth = roce::Deth{qkey, qp.qpn};
    if (imm) {
        t.imm = roce::ImmDt{__builtin_bswap32(raw.imm_data_be)};
    }
    roce::PathContext path = a->path;
    path.udp_sport = roce::rdma_get_udp_sport(path.flow_label, qp.qpn, dest_qpn);
    if (e_.send_frame(path, t, payload_) != 0) {
        ++e_.counters().ud_tx_pkts;
    }
    r.next_psn = roce::psn_add(r.next_psn, 1);
    ++r.sq_next;
    e_.complete_send_ok(qp);
    return true;
}

void Datagram::receive(const roce::ParsedPacket& pkt, std::span<const uint8_t> frame) {
    Counters& c = e_.counters();
    Qp* q = e_.qp(pkt.transport.bth.dest_qp);
    // Dispatch, then the checks of docs/verbs-completeness.md 1.4, in that order.
    if (q == nullptr || !q->is_ud() || !q->can_receive()) {
        ++c.rx_drop_qp;
        return;
    }
    if (!pkey_match(pkt.transport.bth.pkey, q->pkey)) {
        ++c.rx_drop_pkey;
        return;
    }
    if (pkt.ipv4 && pkt.ipv4->ihl != 5) {
        ++c.rx_drop_malformed;  // the GRH has room for a 20-byte IPv4 header only
        return;
    }
    if (!pkt.transport.deth || pkt.transport.deth->qkey != q->qkey) {
        ++c.rx_drop_qkey;
        return;
    }
    ++c.rx_pkts;
    if (pkt.ipv4 ? pkt.ipv4->ecn == 3 : pkt.ipv6 && (pkt.ipv6->traffic_class & 3) == 3) {
        ++c.ecn_ce_rcvd;  // counted; no CNP for datagrams (open question 2)
    }
    auto& s = q->resp;
    if (!e_.responder().take_rwqe(*q)) {
        ++c.ud_rx_no_wqe;  // UD never sends an RNR NAK
        return;
    }
    if (s.rwqe_nsge == ResponderState::kRwqeBad) {
        recv_cqe(*q, kWcLocQpOpErr, 0, nullptr);
        e_.enter_error(*q, kQpErrLocal);
        return;
    }
    const auto sgl = std::span(s.rwqe_sge).first(s.rwqe_nsge);
    uint64_t capacity = 0;
    for (const Sge& g : sgl) {
        capacity += g.length;
    }
    const size_t len = kGrhBytes + pkt.payload.size();
    if (len > capacity) {
        ++c.ud_rx_too_long;  // the WQE stays for the next datagram (IBA class D)
        return;
    }
    // The GRH: the IP header as received (IPv4 after 20 zero bytes), then the payload.
    payload_.assign(len, 0);
    const size_t l3 = pkt.eth.size();
    if (pkt.ipv4) {
        std::copy_n(frame.begin() + static_cast<std::ptrdiff_t>(l3), roce::Ipv4Header::kMinSize,
                    payload_.begin() + kGrhIpv4Offset);
    } else {
        std::copy_n(frame.begin() + static_cast<std::ptrdiff_t>(l3), roce::Ipv6Header::kSize,
                    payload_.begin());
    }
    std::ranges::copy(pkt.payload, payload_.begin() + kGrhBytes);
    switch (e_.mem().scatter(sgl, q->pdn, 0, payload_)) {
        case MemStatus::kOk:
            break;
        case MemStatus::kMiss:
            ++c.rx_drop_tlb_miss;  // lost: UD has no retransmission; the WQE stays
            return;
        case MemStatus::kProt:
        case MemStatus::kDma:
            recv_cqe(*q, kWcLocProtErr, 0, nullptr);
            e_.enter_error(*q, kQpErrLocal);
            return;
    }
    ++c.ud_rx_pkts;
    recv_cqe(*q, kWcSuccess, static_cast<uint32_t>(len), &pkt);
}

void Datagram::recv_cqe(Qp& qp, uint8_t status, uint32_t byte_len, const roce::ParsedPacket* pkt) {
    auto& s = qp.resp;
    scenic_cqe cqe{};
    cqe.wqe_idx = qp.srq ? s.rwqe_idx : s.rq_ci;
    cqe.qpn = qp.qpn;
    cqe.byte_len = byte_len;
    cqe.status = status;
    cqe.opcode = SCENIC_CQE_OP_RECV;
    if (pkt != nullptr) {
        cqe.src_qp = pkt->transport.deth->src_qp;
        if (pkt->transport.imm) {
            cqe.imm_data_be = __builtin_bswap32(pkt->transport.imm->imm);
            cqe.flags |= SCENIC_CQE_F_IMM;
        }
        if (pkt->transport.bth.se) {
            cqe.flags |= SCENIC_CQE_F_SOLICITED;
        }
        if (pkt->ipv6) {
            cqe.flags |= SCENIC_CQE_F_NET_IPV6;
        }
    }
    if (qp.srq) {
        cqe.flags |= SCENIC_CQE_F_SRQ;
    } else {
        ++s.rq_ci;
    }
    e_.cqs().post(qp.recv_cqn, cqe);
    s.have_rwqe = false;
}

}  // namespace scenic::rdma
