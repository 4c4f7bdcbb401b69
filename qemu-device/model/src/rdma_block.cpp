// SPDX-License-Identifier: MIT
#include "scenic/rdma_block.hpp"

#include <utility>

namespace scenic {

namespace r = regs::rdma;

RdmaBlock::RdmaBlock(const Config& config, Host& host, EventQueue& events, EventRing& aeq,
                     std::function<void(bool)> on_enable)
    : Block({r::kType, r::kVersion, r::kOffset, r::kSize, r::kNext}),
      engine_(config, host, events, aeq),
      on_enable_(std::move(on_enable)) {
    reset();
}

void RdmaBlock::reset() {
    engine_.reset();
    enabled_ = false;
    if (on_enable_) {
        on_enable_(false);
    }
}

void RdmaBlock::db_write(uint64_t offset, uint64_t value, unsigned size) {
    if (offset >= db_size()) {
        ++engine_.counters().db_ignored;
        return;
    }
    engine_.doorbell(offset, value, size);
}

uint32_t RdmaBlock::read_reg(uint32_t offset) {
    const rdma::Counters& c = engine_.counters();
    switch (offset) {
        case r::kMaxQp:
            return r::kMaxQpDefault;
        case r::kMaxCq:
            return r::kMaxCqDefault;
        case r::kMaxMr:
            return r::kMaxMrDefault;
        case r::kTlbEntries:
            return r::kTlbEntriesDefault;
        case r::kMaxAh:
            return r::kMaxAhDefault;
        case r::kMaxSrq:
            return r::kMaxSrqDefault;
        case r::kMaxMw:
            return r::kMaxMwDefault;
        case r::kCtrl:
            return enabled_ ? r::kCtrlEnable.mask : 0;
        case r::kFeatures:
            return r::kFeaturesDefault;
        case r::kCeqBaseLo:
            return engine_.ceq().base_lo();
        case r::kCeqBaseHi:
            return engine_.ceq().base_hi();
        case r::kCeqCfg:
            return engine_.ceq().cfg();
        case r::kCeqHead:
            return engine_.ceq().head();
        case r::kCeqTail:
            return engine_.ceq().tail();
        case r::kCeqLost:
            return engine_.ceq().lost();
        case r::kTxPkts:
            return c.tx_pkts;
        case r::kRxPkts:
            return c.rx_pkts;
        case r::kRxDropIcrc:
            return c.rx_drop_icrc;
        case r::kRxDropQp:
            return c.rx_drop_qp;
        case r::kRxDropMalformed:
            return c.rx_drop_malformed;
        case r::kRxDropTlbMiss:
            return c.rx_drop_tlb_miss;
        case r::kSeqNakSent:
            return c.seq_nak_sent;
        case r::kSeqNakRcvd:
            return c.seq_nak_rcvd;
        case r::kRnrNakSent:
            return c.rnr_nak_sent;
        case r::kRnrNakRcvd:
            return c.rnr_nak_rcvd;
        case r::kRetransmits:
            return c.retransmits;
        case r::kAckTimeouts:
            return c.ack_timeouts;
        case r::kDupRequests:
            return c.dup_requests;
        case r::kRemAccessErr:
            return c.rem_access_err;
        case r::kRemInvReq:
            return c.rem_inv_req;
        case r::kAcksSent:
            return c.acks_sent;
        case r::kTlbHits:
            return c.tlb_hits;
        case r::kTlbMisses:
            return c.tlb_misses;
        case r::kTlbEvictions:
            return c.tlb_evictions;
        case r::kCqeWritten:
            return c.cqe_written;
        case r::kCqOverruns:
            return c.cq_overruns;
        case r::kWireDrops:
            return c.wire.drops;
        case r::kWireDups:
            return c.wire.dups;
        case r::kWireReorders:
            return c.wire.reorders;
        case r::kWireDelays:
            return c.wire.delays;
        case r::kWireCorrupts:
            return c.wire.corrupts;
        case r::kWireEcnMarks:
            return c.wire.ecn_marks;
        case r::kCnpSent:
            return c.cnp_sent;
        case r::kCnpRcvd:
            return c.cnp_rcvd;
        case r::kEcnCeRcvd:
            return c.ecn_ce_rcvd;
        case r::kCcRateCuts:
            return c.cc_rate_cuts;
        case r::kRxDropPkey:
            return c.rx_drop_pkey;
        case r::kLoopbackFrames:
            return c.loopback_frames;
        case r::kLoopbackDrops:
            return c.loopback_drops;
        case r::kRxDropQkey:
            return c.rx_drop_qkey;
        case r::kUdRxNoWqe:
            return c.ud_rx_no_wqe;
        case r::kUdRxTooLong:
            return c.ud_rx_too_long;
        case r::kUdTxOversize:
            return c.ud_tx_oversize;
        case r::kUdTxPkts:
            return c.ud_tx_pkts;
        case r::kUdRxPkts:
            return c.ud_rx_pkts;
        case r::kSrHelloSent:
            return c.sr_hello_sent;
        case r::kSrHelloAcked:
            return c.sr_hello_acked;
        case r::kSrHelloUnanswered:
            return c.sr_hello_unanswered;
        case r::kSrDropMalformed:
            return c.sr_drop_malformed;
        case r::kSrDropNotNegotiated:
            return c.sr_drop_not_negotiated;
        case r::kSrFallbacks:
            return c.sr_fallbacks;
        case r::kSrSackSent:
            return c.sr_sack_sent;
        case r::kSrSackRcvd:
            return c.sr_sack_rcvd;
        case r::kSrOooPlaced:
            return c.sr_ooo_placed;
        case r::kSrRetransmits:
            return c.sr_retransmits;
        case r::kSrProbes:
            return c.sr_probes;
        case r::kSrDropOrder:
            return c.sr_drop_order;
        case r::kSrDropFence:
            return c.sr_drop_fence;
        case r::kSrDropResource:
            return c.sr_drop_resource;
        case r::kSrDropWindow:
            return c.sr_drop_window;
        case r::kSrDupOoo:
            return c.sr_dup_ooo;
        default:
            return 0;
    }
}

void RdmaBlock::write_reg(uint32_t offset, uint32_t value) {
    switch (offset) {
        case r::kCtrl:
            enabled_ = (value & r::kCtrlEnable.mask) != 0;
            if (on_enable_) {
                on_enable_(enabled_);
            }
            break;
        case r::kCeqBaseLo:
            engine_.ceq().write_base_lo(value);
            break;
        case r::kCeqBaseHi:
            engine_.ceq().write_base_hi(value);
            break;
        case r::kCeqCfg:
            engine_.ceq().write_cfg(value);
            break;
        case r::kCeqHead:
            engine_.ceq().write_head(value);
            break;
        default:
            break;  // read-only registers and holes
    }
}

}  // namespace scenic
