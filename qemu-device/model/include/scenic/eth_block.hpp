// SPDX-License-Identifier: MIT
// ETH block: the fallback path, the card's netdev function (paper section 7.1). Registers,
// destination-MAC filter and counters live here; the RX tagger / ring engine is EthRx, the TX
// command engine EthTx, interrupt moderation of MSI-X vector 1 IrqModerator.
//
// RX from the wire, in this order: shorter than 14 bytes -> RX_DROP_RUNT; the prefilter twin
// (hw-rtl scenic::dp::Prefilter) classifies the frame: with RDMA.CTRL.enable RoCE v2 goes to the
// RDMA engine, otherwise it is counted in RX_ROCE and continues here; longer
// than MTU + 18 or than the slot -> RX_DROP_OVERSIZE; refused by the MAC filter ->
// RX_DROP_FILTER; rx_en off, ring unset or invalid, link down -> RX_DROP_DISABLED; ring full ->
// RX_DROP_RING_FULL; else one DMA of tag + frame, RX_TAIL, writeback, counters, one event.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "scenic/block.hpp"
#include "scenic/config.hpp"
#include "scenic/cosim/blocks.hpp"
#include "scenic/dp/prefilter.hpp"
#include "scenic/eth_irq.hpp"
#include "scenic/eth_ring.hpp"
#include "scenic/eth_rx.hpp"
#include "scenic/eth_tx.hpp"
#include "scenic/event_queue.hpp"
#include "scenic/host.hpp"

namespace scenic {

// The block's 32-bit counters (they wrap, as on the card).
struct EthCounters {
    uint32_t rx_frames = 0;
    uint32_t rx_bytes = 0;
    uint32_t rx_drop_ring_full = 0;
    uint32_t rx_drop_runt = 0;
    uint32_t rx_drop_oversize = 0;
    uint32_t rx_drop_filter = 0;
    uint32_t rx_drop_disabled = 0;
    uint32_t rx_dma_errors = 0;
    uint32_t tx_frames = 0;
    uint32_t tx_bytes = 0;
    uint32_t tx_drop_bad_cmd = 0;
    uint32_t tx_dma_errors = 0;
    // ETH 1.1 offloads
    uint32_t tx_drop_bad_offload = 0;
    uint32_t tx_drop_bad_sg = 0;
    uint32_t tx_tso_pkts = 0;
    uint32_t tx_tso_segs = 0;
    uint32_t tx_csum = 0;
    uint32_t rx_csum_good = 0;
    uint32_t rx_csum_bad = 0;
};

class EthBlock final : public Block {
  public:
    // TX commands consumed per run: a doorbell (or event) never does more, the rest continues
    // from an EventQueue event, so a guest posting 32768 commands cannot stall QEMU.
    static constexpr uint32_t kTxBatch = 64;
    // Delay of that continuation (lets the vCPUs and the RX side run in between).
    static constexpr uint64_t kTxContinueNs = 0;
    static constexpr uint32_t kMinMtu = 68;
    static constexpr uint32_t kL2Overhead = 18;  // Ethernet header and one VLAN tag

    EthBlock(const Config& config, Host& host, EventQueue& events);
    ~EthBlock() override;

    void reset() override;

    // The wire side. The card has no back-pressure towards the wire (the MAC cannot pause the
    // line): a frame that does not fit is dropped and counted, never queued, so can_receive()
    // is always true and QEMU never holds frames for the card.
    void receive(std::span<const uint8_t> frame);
    [[nodiscard]] bool can_receive() const { return true; }
    // Carrier from the wire (QEMU: netdev link status). Not a register: survives reset.
    void set_link(bool up) { link_up_ = up; }
    [[nodiscard]] bool link_up() const { return link_up_; }
    // RDMA.CTRL.enable: the prefilter hands RoCE v2 frames to the sink (the RDMA engine) instead
    // of the RX ring. Not an ETH register: survives the ETH block's reset. The sink returns
    // false for a frame it leaves to the fallback path (BTH destination QP 1: the driver's
    // software GSI); that frame then goes to the RX ring like any other.
    void set_roce_steering(bool enabled) { prefilter_->set_rdma_enabled(enabled); }
    void set_roce_sink(std::function<bool(std::span<const uint8_t>)> sink) {
        roce_sink_ = std::move(sink);
    }

    // The SCU steering table (docs/scu.md 3): RX frames the prefilter left to the fallback path
    // and TX frames after the ETH TX DMA are offered to it; true means a slot took the frame (a
    // TX command then completes). The slot's RX output comes back through deliver_from_scu().
    void set_steer(SteerHook hook) { steer_ = std::move(hook); }
    void deliver_from_scu(std::span<const uint8_t> frame);

    [[nodiscard]] const EthCounters& counters() const { return cnt_; }
    [[nodiscard]] uint32_t mtu() const { return mtu_; }
    [[nodiscard]] uint64_t wb_errors() const { return wb_.errors(); }

  protected:
    uint32_t read_reg(uint32_t offset) override;
    void write_reg(uint32_t offset, uint32_t value) override;

  private:
    [[nodiscard]] bool accept_dst(std::span<const uint8_t> frame) const;
    // The RX path after the prefilter and the steering table: size, MAC filter, ring.
    void deliver(std::span<const uint8_t> frame, dp::FrameClass cls);
    [[nodiscard]] uint32_t max_frame() const { return mtu_ + kL2Overhead; }
    void tx_kick();
    void cancel_tx_event();

    const Config& config_;
    EventQueue& events_;
    EthRx rx_;
    EthTx tx_;
    Writeback wb_;
    IrqModerator irq_;
    std::unique_ptr<cosim::PrefilterEngine> prefilter_;  // twin, or RTL with Config::rtl_blocks
    EthCounters cnt_;
    bool link_up_ = true;
    uint32_t ctrl_ = 0;
    uint32_t mtu_ = 0;
    uint32_t offload_ctrl_ = 0;
    std::optional<EventQueue::Id> tx_event_;
    std::function<bool(std::span<const uint8_t>)> roce_sink_;
    SteerHook steer_;
};

}  // namespace scenic
