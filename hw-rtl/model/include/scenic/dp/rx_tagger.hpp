// SPDX-License-Identifier: MIT
// C++ twin of hw-rtl/rtl/scenic_rx_tagger.sv: transaction level (one call per frame, in the order
// the RTL's output side takes them). Same tag, slot, sequence number, drop rules and counters as
// the RTL; timing (store and forward, one beat per cycle) is not modelled, out_beats() gives the
// DMA beat count. Drop rules and ring behaviour follow the device model
// (qemu-device/model/src/eth_rx.cpp and EthBlock::receive), checked against EthRx in tb_rx_tagger.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace scenic::dp {

class RxTagger {
  public:
    static constexpr unsigned kTagBytes = 8;  // SCENIC_RX_TAG_BYTES
    static constexpr unsigned kRuntBytes = 14;
    static constexpr uint16_t kTagValid = 0x0001;  // SCENIC_RX_TAG_VALID
    static constexpr unsigned kClassShift = 1;     // SCENIC_RX_TAG_CLASS_SHIFT

    struct Params {
        unsigned data_w = 512;        // DATA_W
        unsigned fifo_bytes = 16384;  // FIFO_BYTES: frames above fifo_bytes - data_w/8 are oversize
        unsigned cnt_w = 32;          // CNT_W: counters wrap modulo 2^cnt_w
    };
    // The ETH registers the tagger reads (RX_RING_*, RX_HEAD, MTU + 18, CTRL.RX_EN and link).
    struct Config {
        uint64_t ring_addr = 0;
        uint32_t ring_stride = 0x800;
        uint32_t ring_size = 0;
        uint32_t ring_head = 0;  // reduced modulo the size (RX_HEAD[14:0] on the RTL port)
        uint16_t max_frame = 1518;
        bool rx_en = false;
    };
    enum class Verdict : uint8_t { Written, DropRunt, DropOversize, DropDisabled, DropRingFull };
    // One DMA write: tag + frame into one ring slot.
    struct DmaWrite {
        uint64_t addr = 0;
        std::vector<uint8_t> bytes;
        bool operator==(const DmaWrite&) const = default;
    };
    struct Counters {
        uint64_t frames = 0, bytes = 0, drop_ring_full = 0, drop_runt = 0, drop_oversize = 0,
                 drop_disabled = 0;
        bool operator==(const Counters&) const = default;
    };

    explicit RxTagger(const Params& p);
    void reset();       // rst
    void ring_reset();  // cfg_ring_reset: RX_RING_SIZE written (tail, seq = 0)
    Config& config() { return cfg_; }
    [[nodiscard]] const Config& config() const { return cfg_; }

    // One frame from the prefilter with its class (0 RoCE v2, 1 TCP, 2 other). On Written, *out
    // (if given) is the DMA write.
    Verdict process(std::span<const uint8_t> frame, unsigned cls, DmaWrite* out = nullptr);

    [[nodiscard]] bool ring_valid() const;
    [[nodiscard]] bool full() const;
    [[nodiscard]] uint32_t head() const;
    [[nodiscard]] uint32_t tail() const { return tail_; }
    [[nodiscard]] uint32_t seq() const { return seq_; }
    [[nodiscard]] uint32_t limit() const;  // longest frame accepted now
    [[nodiscard]] uint32_t hw_max() const { return p_.fifo_bytes - p_.data_w / 8; }
    [[nodiscard]] const Counters& counters() const { return cnt_; }
    // DMA data beats of a written frame of len bytes: ceil((len + 8) / (data_w / 8)).
    [[nodiscard]] unsigned out_beats(size_t len) const;

    static std::array<uint8_t, kTagBytes> tag(uint16_t len, uint16_t flags, uint32_t seq);

  private:
    void bump(uint64_t& c, uint64_t by = 1) const { c = (c + by) & cnt_mask_; }
    Params p_;
    uint64_t cnt_mask_;
    Config cfg_;
    uint32_t tail_ = 0;
    uint32_t seq_ = 0;
    Counters cnt_;
};

}  // namespace scenic::dp
