// SPDX-License-Identifier: MIT
#include "scenic/rdma_sr.hpp"

#include <algorithm>

#include "scenic/rdma_engine.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::rdma {

using roce::OpClass;

namespace {

uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

bool consumes_rwqe(uint8_t wqe_opcode) {
    return wqe_opcode == SCENIC_WQE_OP_SEND || wqe_opcode == SCENIC_WQE_OP_SEND_IMM ||
           wqe_opcode == SCENIC_WQE_OP_WRITE_IMM;
}

roce::SrHello our_hello(uint32_t nonce) {
    roce::SrHello h;
    h.version = kSrVersion;
    h.window_log2 = kSrWindowLog2;
    h.max_ranges = kSrMaxRanges;
    h.flags = kSrFlagReadResponses;
    h.vendor = kSrVendor;
    h.nonce = nonce;
    return h;
}

}  // namespace

uint32_t SelectiveRepeat::nonce(const Qp& qp) const {
    // Fresh per incarnation (the generation changes at every RESET) and per card.
    uint64_t mac = 0;
    for (const uint8_t b : e_.config().mac) {
        mac = (mac << 8) | b;
    }
    return static_cast<uint32_t>(splitmix64(mac ^ (qp.generation << 24) ^ qp.qpn));
}

void SelectiveRepeat::start(Qp& qp) {
    auto& r = qp.req;
    if (!qp.sr_attr || !e_.config().sr_capable) {
        return;
    }
    r.sr = SrTx::kOffered;
    r.sr_hellos = 0;
    r.sr_nonce = nonce(qp);
    send_hello(qp);
}

void SelectiveRepeat::send_hello(Qp& qp) {
    auto& r = qp.req;
    roce::Transport t;
    t.bth.opcode = static_cast<uint8_t>(roce::Opcode::kSrHello);
    t.bth.psn = r.next_psn;  // informational: a hello consumes no PSN
    t.sr_hello = our_hello(r.sr_nonce);
    // Not through the transmit arbiter or the pacer (2.5): a hello carries no data.
    e_.send(qp, t, {});
    ++e_.counters().sr_hello_sent;
    const uint64_t gap = kSrHelloGapNs.at(r.sr_hellos);
    ++r.sr_hellos;
    e_.defer(qp, QpTimer::kSrHello, gap, [this](Qp& q) { on_hello_timer(q); });
}

void SelectiveRepeat::on_hello_timer(Qp& qp) {
    auto& r = qp.req;
    if (r.sr != SrTx::kOffered) {
        return;  // answered meanwhile
    }
    if (r.sr_hellos < kSrHelloTries && qp.can_send()) {
        send_hello(qp);
        return;
    }
    r.sr = SrTx::kOffForLife;  // go-back-N until RESET
    ++e_.counters().sr_hello_unanswered;
}

bool SelectiveRepeat::hello_ok(const roce::SrHello& h) {
    return h.magic == roce::SrHello::kMagic && h.version == kSrVersion &&
           h.window_log2 >= kSrMinWindowLog2 && h.window_log2 <= kSrWindowLog2 &&
           h.max_ranges >= 1 && h.max_ranges <= kSrMaxRanges &&
           (h.flags & ~kSrFlagReadResponses) == 0 && h.reserved == 0;
}

std::optional<roce::ParsedPacket> SelectiveRepeat::receive(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& c = e_.counters();
    if (!qp.sr_attr) {
        ++c.sr_drop_not_negotiated;  // as a standard peer would: silently, no NAK
        return std::nullopt;
    }
    if (pkt.info->cls == OpClass::kSrHello) {
        if (!path_matches(qp, pkt)) {
            ++c.rx_drop_path;
        } else if (!hello_ok(*pkt.transport.sr_hello)) {
            ++c.sr_drop_malformed;
        } else if (pkt.info->request) {
            hello(qp, pkt);
        } else {
            hello_ack(qp, pkt);
        }
        return std::nullopt;
    }
    auto& s = qp.resp;
    if (s.sr == SrRx::kOff) {
        ++c.sr_drop_not_negotiated;  // no hello was answered: the requester cannot be in SR
        return std::nullopt;
    }
    if (!sreth_ok(qp, pkt)) {
        ++c.sr_drop_malformed;
        return std::nullopt;
    }
    const int32_t d = roce::psn_diff(pkt.transport.bth.psn, s.epsn);
    if (d >= 0 && d < (int32_t{1} << s.sr_window_log2) && s.sr != SrRx::kSacking) {
        s.sr = SrRx::kSacking;  // the requester has proved it runs SR
        s.sr_right_edge = s.epsn;
        s.sr_placed.reset();
        s.sr_ends.reset();
    }
    // The RC view: in order it is executed exactly as its RC opcode.
    roce::ParsedPacket rc = pkt;
    const auto op = static_cast<uint8_t>(pkt.transport.bth.opcode - roce::kSrDataBase);
    rc.info = roce::rc_opcode_info(op);
    rc.transport.bth.opcode = op;
    rc.transport.sreth.reset();
    if (!rc.info->has(roce::kHdrReth)) {
        rc.transport.reth.reset();
    }
    return rc;
}

bool SelectiveRepeat::sreth_ok(const Qp& qp, const roce::ParsedPacket& pkt) {
    const roce::Sreth& h = *pkt.transport.sreth;
    const roce::OpcodeInfo& info = *pkt.info;
    if ((h.ver_flags >> 4) != kSrVersion || (h.ver_flags & 0x0e) != 0 || h.reserved != 0 ||
        (h.rsn >> 24) != 0 || (h.midx == 0) != info.first) {
        return false;
    }
    const uint64_t end = uint64_t{h.midx} * qp.pmtu + pkt.payload.size();
    if (info.cls == OpClass::kWrite) {
        const uint32_t len = pkt.transport.reth->dma_length;
        return h.msg_len == 0 && end <= len && (!info.last || end == len);
    }
    return end <= h.msg_len && (!info.last || end == h.msg_len);
}

void SelectiveRepeat::hello(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& s = qp.resp;
    const roce::SrHello& h = *pkt.transport.sr_hello;
    // Answered every time (idempotent): the ack may have been lost.
    s.sr_window_log2 = std::min(kSrWindowLog2, h.window_log2);
    s.sr_max_ranges = std::min(kSrMaxRanges, h.max_ranges);
    if (s.sr == SrRx::kOff) {
        s.sr = SrRx::kAcked;
    }
    roce::Transport t;
    t.bth.opcode = static_cast<uint8_t>(roce::Opcode::kSrHelloAck);
    t.bth.psn = qp.req.next_psn;
    t.sr_hello = our_hello(h.nonce);
    e_.send(qp, t, {});
}

void SelectiveRepeat::hello_ack(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& r = qp.req;
    const roce::SrHello& h = *pkt.transport.sr_hello;
    if (r.sr != SrTx::kOffered || h.nonce != r.sr_nonce) {
        return;  // a repeated ack, or one of an earlier incarnation
    }
    r.sr = SrTx::kOn;
    r.sr_window_log2 = std::min(kSrWindowLog2, h.window_log2);
    r.sr_max_ranges = std::min(kSrMaxRanges, h.max_ranges);
    ++e_.counters().sr_hello_acked;
}

void SelectiveRepeat::begin(Qp& qp, SendWqe& w) {
    auto& r = qp.req;
    w.sr = r.sr == SrTx::kOn;
    w.rsn = r.next_rsn & kPsnMask;
    if (consumes_rwqe(w.opcode)) {
        ++r.next_rsn;
    }
    if (!w.sr || w.needs_response()) {
        return;
    }
    // The order fence (4.4, 5.2): behind the most recent READ / atomic not complete, and behind
    // the most recent WRITE not complete that overlaps it under the same R_Key. The latest such
    // WQE in SQ order has the larger last PSN.
    const bool write = w.opcode == SCENIC_WQE_OP_WRITE || w.opcode == SCENIC_WQE_OP_WRITE_IMM;
    const auto overlaps = [&w](const SendWqe& p) {
        return (p.opcode == SCENIC_WQE_OP_WRITE || p.opcode == SCENIC_WQE_OP_WRITE_IMM) &&
               p.rkey == w.rkey && p.length != 0 && w.length != 0 &&
               p.remote_addr < w.remote_addr + w.length && w.remote_addr < p.remote_addr + p.length;
    };
    for (auto it = r.pending.rbegin(); it != r.pending.rend(); ++it) {
        if (it->npsn == 0 || it->local_err != 0) {
            continue;
        }
        if (it->needs_response() || (write && overlaps(*it))) {
            w.ofv = true;
            w.ofp = it->last_psn();
            return;
        }
    }
}

void SelectiveRepeat::to_sr_format(const SendWqe& w, uint32_t k, roce::Transport& t) {
    const bool send = w.opcode == SCENIC_WQE_OP_SEND || w.opcode == SCENIC_WQE_OP_SEND_IMM ||
                      w.opcode == SCENIC_WQE_OP_SEND_INV;
    t.bth.opcode = static_cast<uint8_t>(roce::kSrDataBase + t.bth.opcode);
    roce::Sreth h;
    h.midx = k;
    h.rsn = w.rsn;
    h.msg_len = send ? w.length : 0;
    if (w.ofv) {
        h.ver_flags |= 1u;  // OFV
        h.ofp = w.ofp;
    }
    t.sreth = h;
    if (!send && !t.reth) {
        t.reth = roce::Reth{w.remote_addr, w.rkey, w.length};  // every WRITE packet (3.1)
    }
}

}  // namespace scenic::rdma
