// SPDX-License-Identifier: MIT
#include "scenic/eth_block.hpp"

#include <algorithm>
#include <array>

#include "scenic/dp/rx_parse.hpp"
#include "scenic/regs.hpp"

namespace scenic {

namespace eth = regs::eth;

namespace {

Block::Header eth_header(const Config& config) {
    const uint32_t version = config.bad_block_version ? Config::kBadMajor << 16 : eth::kVersion;
    return {eth::kType, version, eth::kOffset, eth::kSize, eth::kNext};
}

constexpr uint32_t kCtrlMask =
    eth::kCtrlRxEn.mask | eth::kCtrlTxEn.mask | eth::kCtrlPromisc.mask | eth::kCtrlAllmulti.mask;
constexpr uint16_t kTagValid = 0x0001;  // SCENIC_RX_TAG_VALID
constexpr unsigned kTagClassShift = 1;  // SCENIC_RX_TAG_CLASS_SHIFT
constexpr unsigned kTagCsumShift = 3;   // SCENIC_RX_TAG_CSUM_SHIFT
constexpr size_t kEthHeader = 14;

}  // namespace

EthBlock::EthBlock(const Config& config, Host& host, EventQueue& events)
    : Block(eth_header(config)),
      config_(config),
      events_(events),
      rx_(host),
      tx_(host),
      wb_(host),
      irq_(host, events, regs::kVecEth, config.msix_vectors > regs::kVecEth),
      prefilter_(cosim::make_prefilter((config.rtl_blocks & cosim::kRtlPrefilter) != 0)) {
    prefilter_->set_rdma_enabled(false);  // until RDMA.CTRL.enable: RoCE v2 takes the fallback path
    reset();
}

EthBlock::~EthBlock() { cancel_tx_event(); }

void EthBlock::reset() {
    cancel_tx_event();
    rx_.reset();
    tx_.reset();
    wb_.reset();
    irq_.reset();
    prefilter_->reset();
    cnt_ = {};
    ctrl_ = eth::kCtrlDefault;
    mtu_ = eth::kMtuDefault;
    offload_ctrl_ = eth::kOffloadCtrlDefault;
}

uint32_t EthBlock::read_reg(uint32_t offset) {
    const auto& mac = config_.mac;
    switch (offset) {
        case eth::kMacLo:
            return uint32_t{mac[2]} << 24 | uint32_t{mac[3]} << 16 | uint32_t{mac[4]} << 8 | mac[5];
        case eth::kMacHi:
            return uint32_t{mac[0]} << 8 | mac[1];
        case eth::kLink:
            return (eth::kLinkDefault & ~eth::kLinkUp.mask) | (link_up_ ? eth::kLinkUp.mask : 0);
        case eth::kMaxMtu:
            return eth::kMaxMtuDefault;
        case eth::kCtrl:
            return ctrl_;
        case eth::kMtu:
            return mtu_;
        case eth::kRxRingAddrLo:
            return rx_.addr_lo();
        case eth::kRxRingAddrHi:
            return rx_.addr_hi();
        case eth::kRxRingStride:
            return rx_.stride();
        case eth::kRxRingSize:
            return rx_.size();
        case eth::kRxTail:
            return rx_.tail();
        case eth::kRxHead:
            return rx_.head();
        case eth::kTxRingAddrLo:
            return tx_.addr_lo();
        case eth::kTxRingAddrHi:
            return tx_.addr_hi();
        case eth::kTxRingSize:
            return tx_.size();
        case eth::kTxHead:
            return tx_.head();
        case eth::kTxTail:
            return tx_.tail();
        case eth::kWbAddrLo:
            return wb_.lo();
        case eth::kWbAddrHi:
            return wb_.hi();
        case eth::kIrqCoal:
            return irq_.coal();
        case eth::kIrqTime:
            return irq_.time_us();
        case eth::kIrqMask:
            return irq_.masked() ? 1 : 0;
        case eth::kRxFrames:
            return cnt_.rx_frames;
        case eth::kRxBytes:
            return cnt_.rx_bytes;
        case eth::kRxDropRingFull:
            return cnt_.rx_drop_ring_full;
        case eth::kRxDropRunt:
            return cnt_.rx_drop_runt;
        case eth::kRxDropOversize:
            return cnt_.rx_drop_oversize;
        case eth::kRxDropFilter:
            return cnt_.rx_drop_filter;
        case eth::kRxDropDisabled:
            return cnt_.rx_drop_disabled;
        case eth::kRxDmaErrors:
            return cnt_.rx_dma_errors;
        case eth::kTxFrames:
            return cnt_.tx_frames;
        case eth::kTxBytes:
            return cnt_.tx_bytes;
        case eth::kTxDropBadCmd:
            return cnt_.tx_drop_bad_cmd;
        case eth::kTxDmaErrors:
            return cnt_.tx_dma_errors;
        case eth::kIrqCount:
            return irq_.irq_count();
        case eth::kRxRoce:
            return static_cast<uint32_t>(prefilter_->counters().host_roce);
        case eth::kFeatures:
            return eth::kFeaturesDefault;
        case eth::kTxMaxFrags:
            return EthTx::kMaxFrags;
        case eth::kTxMaxPkt:
            return EthTx::kMaxPkt;
        case eth::kTxMaxTsoSegs:
            return EthTx::kMaxTsoSegs;
        case eth::kOffloadCtrl:
            return offload_ctrl_;
        case eth::kTxDropBadOffload:
            return cnt_.tx_drop_bad_offload;
        case eth::kTxDropBadSg:
            return cnt_.tx_drop_bad_sg;
        case eth::kTxTsoPkts:
            return cnt_.tx_tso_pkts;
        case eth::kTxTsoSegs:
            return cnt_.tx_tso_segs;
        case eth::kTxCsum:
            return cnt_.tx_csum;
        case eth::kRxCsumGood:
            return cnt_.rx_csum_good;
        case eth::kRxCsumBad:
            return cnt_.rx_csum_bad;
        default:
            return 0;
    }
}

void EthBlock::write_reg(uint32_t offset, uint32_t value) {
    switch (offset) {
        case eth::kCtrl:
            ctrl_ = value & kCtrlMask;
            tx_kick();  // tx_en set: send what is already posted
            break;
        case eth::kMtu:
            // 68..MAX_MTU: out-of-range values are clamped (what reads back is what applies)
            mtu_ = std::clamp(value, kMinMtu, eth::kMaxMtuDefault);
            break;
        case eth::kRxRingAddrLo:
            rx_.set_addr_lo(value);
            break;
        case eth::kRxRingAddrHi:
            rx_.set_addr_hi(value);
            break;
        case eth::kRxRingStride:
            rx_.set_stride(value);
            break;
        case eth::kRxRingSize:
            rx_.set_size(value);
            break;
        case eth::kRxHead:
            rx_.set_head(value);
            break;
        case eth::kTxRingAddrLo:
            tx_.set_addr_lo(value);
            break;
        case eth::kTxRingAddrHi:
            tx_.set_addr_hi(value);
            break;
        case eth::kTxRingSize:
            tx_.set_size(value);
            break;
        case eth::kTxTail:
            tx_.set_tail(value);
            tx_kick();
            break;
        case eth::kWbAddrLo:
            wb_.set_lo(value);
            break;
        case eth::kWbAddrHi:
            wb_.set_hi(value);
            break;
        case eth::kIrqCoal:
            irq_.set_coal(value);
            break;
        case eth::kIrqTime:
            irq_.set_time(value);
            break;
        case eth::kIrqMask:
            irq_.set_mask((value & 1) != 0);
            break;
        case eth::kOffloadCtrl:
            offload_ctrl_ = value & eth::kOffloadCtrlRxCsum.mask;
            break;
        default:
            break;  // read-only registers and holes
    }
}

bool EthBlock::accept_dst(std::span<const uint8_t> frame) const {
    if (ctrl_ & eth::kCtrlPromisc.mask) {
        return true;
    }
    const auto dst = frame.first<6>();
    if (std::ranges::equal(dst, config_.mac)) {
        return true;
    }
    if ((dst[0] & 1) == 0) {
        return false;  // another station's unicast
    }
    const bool broadcast = std::ranges::all_of(dst, [](uint8_t b) { return b == 0xff; });
    return broadcast || (ctrl_ & eth::kCtrlAllmulti.mask) != 0;
}

void EthBlock::receive(std::span<const uint8_t> frame) {
    if (frame.size() < kEthHeader) {
        ++cnt_.rx_drop_runt;
        return;
    }
    const dp::Prefilter::Verdict verdict = prefilter_->process(frame);  // counts RX_ROCE
    if (verdict.port == dp::PrefilterPort::Rdma && roce_sink_ && roce_sink_(frame)) {
        return;
    }
    // Fallback from here on: the SCU steering table may take the frame (docs/scu.md 3); what
    // the slot returns re-enters below with deliver_from_scu().
    if (steer_ && steer_(scu::Dir::kRx, frame)) {
        return;
    }
    deliver(frame, verdict.cls);
}

void EthBlock::deliver_from_scu(std::span<const uint8_t> frame) {
    // The tagger runs on the slot's (possibly modified) frame.
    deliver(frame, dp::classify_frame(frame));
}

void EthBlock::deliver(std::span<const uint8_t> frame, dp::FrameClass cls) {
    if (frame.size() > max_frame() || (rx_.valid() && !rx_.fits(frame.size()))) {
        ++cnt_.rx_drop_oversize;
        return;
    }
    if (!accept_dst(frame)) {
        ++cnt_.rx_drop_filter;
        return;
    }
    if ((ctrl_ & eth::kCtrlRxEn.mask) == 0 || !rx_.valid() || !link_up_) {
        ++cnt_.rx_drop_disabled;
        return;
    }
    auto flags = static_cast<uint16_t>(kTagValid | static_cast<unsigned>(cls) << kTagClassShift);
    dp::CsumStatus csum = dp::CsumStatus::kNone;
    if ((offload_ctrl_ & eth::kOffloadCtrlRxCsum.mask) != 0) {
        csum = dp::rx_csum_status(frame);
        flags = static_cast<uint16_t>(flags | static_cast<unsigned>(csum) << kTagCsumShift);
    }
    switch (rx_.write(frame, flags)) {
        case EthRx::Result::kRingFull:
            ++cnt_.rx_drop_ring_full;
            return;
        case EthRx::Result::kDmaError:
            ++cnt_.rx_dma_errors;
            return;
        case EthRx::Result::kWritten:
            break;
    }
    ++cnt_.rx_frames;
    cnt_.rx_bytes += static_cast<uint32_t>(frame.size());
    if (csum == dp::CsumStatus::kGood) {
        ++cnt_.rx_csum_good;
    } else if (csum != dp::CsumStatus::kNone) {
        ++cnt_.rx_csum_bad;
    }
    // Tag and frame are in the slot: now the writeback, then the event (contract 4).
    if (wb_.enabled()) {
        wb_.update(rx_.tail(), tx_.head());
    }
    irq_.add_events(1);
}

void EthBlock::tx_kick() {
    if ((ctrl_ & eth::kCtrlTxEn.mask) == 0 || !tx_.pending()) {
        return;
    }
    const uint32_t n = tx_.run(kTxBatch, max_frame(), link_up_, cnt_, steer_);
    // TX_HEAD is in the writeback before the events for those commands count (contract 3).
    if (n != 0 && wb_.enabled()) {
        wb_.update(rx_.tail(), tx_.head());
    }
    irq_.add_events(n);
    if (tx_.pending() && !tx_event_) {
        tx_event_ = events_.schedule_in(kTxContinueNs, [this] {
            tx_event_.reset();
            tx_kick();
        });
    }
}

void EthBlock::cancel_tx_event() {
    if (tx_event_) {
        events_.cancel(*tx_event_);
        tx_event_.reset();
    }
}

}  // namespace scenic
