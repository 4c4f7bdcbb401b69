// SPDX-License-Identifier: MIT
// TX engine of the ETH block: fetches 16-byte entries from TX_HEAD up to TX_TAIL by DMA. A
// packet is a run of entries (every one but the last has MORE), optionally led by a context
// entry (CTX) asking for a checksum or TCP segmentation (docs/eth-offloads.md 1.1). The engine
// checks the whole run, gathers its buffers, applies the offload and puts the frames on the
// wire. Every packet is consumed whole (TX_HEAD moves past all its entries at once, only after
// every byte was read), also one that is refused or cannot be read. The ETH block decides when
// to run it (tx_en, doorbell), bounds each run and does writeback, moderation and the
// continuation event.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "scenic/host.hpp"
#include "scenic/scu.hpp"

namespace scenic {

struct EthCounters;
struct TxCtx;
// The SCU steering table as the ETH block sees it: true when a slot took the frame.
using SteerHook = std::function<bool(scu::Dir, std::span<const uint8_t>)>;

class EthTx {
  public:
    static constexpr uint32_t kCmdBytes = 16;  // SCENIC_TX_CMD_BYTES
    static constexpr uint32_t kMinFrame = 14;
    static constexpr uint32_t kFlagMore = 1u << 0;  // SCENIC_TX_MORE
    static constexpr uint32_t kFlagCtx = 1u << 1;   // SCENIC_TX_CTX
    static constexpr uint32_t kFlagsReserved = ~(kFlagMore | kFlagCtx);
    static constexpr uint32_t kMaxFrags = 32;  // TX_MAX_FRAGS
    static constexpr uint32_t kMaxEntryLen = 65535;
    static constexpr uint32_t kMaxPkt = 65536;     // TX_MAX_PKT
    static constexpr uint32_t kMaxTsoSegs = 1024;  // TX_MAX_TSO_SEGS

    explicit EthTx(Host& host);

    void reset();

    // Registers. Writing the size (any value) resets head and tail.
    void set_addr_lo(uint32_t v) { addr_lo_ = v; }
    void set_addr_hi(uint32_t v) { addr_hi_ = v; }
    void set_size(uint32_t v);
    void set_tail(uint32_t v);  // reduced modulo the size (0 while the ring is invalid)
    [[nodiscard]] uint32_t addr_lo() const { return addr_lo_; }
    [[nodiscard]] uint32_t addr_hi() const { return addr_hi_; }
    [[nodiscard]] uint32_t size() const { return size_; }
    [[nodiscard]] uint32_t head() const { return head_; }
    [[nodiscard]] uint32_t tail() const { return tail_; }

    [[nodiscard]] bool valid() const;
    // Entries between head and tail that the engine can make progress on (a packet cut by
    // TX_TAIL waits for the next doorbell).
    [[nodiscard]] bool pending() const { return valid() && head_ != tail_ && !waiting_; }

    // Consumes packets until at least max_cmds entries are done (never stopping inside a
    // packet); frames are max_len bytes at most (MTU + 18). send says whether frames go on the
    // wire (link up); a frame `steer` takes goes to an SCU slot instead (its output reaches the
    // wire from there). Returns the number of entries consumed.
    uint32_t run(uint32_t max_cmds, uint32_t max_len, bool send, EthCounters& cnt,
                 const SteerHook& steer = {});

  private:
    struct Entry {
        std::array<uint8_t, kCmdBytes> raw{};
        uint64_t addr = 0;
        uint32_t len = 0;
        uint32_t flags = 0;
    };

    bool read_entry(uint32_t index, Entry& e);
    // Checks, gathers and sends the packet in entries_.
    void packet(uint32_t max_len, bool send, EthCounters& cnt, const SteerHook& steer);
    void emit(std::span<const uint8_t> frame, bool send, EthCounters& cnt, const SteerHook& steer);

    Host& host_;
    uint32_t addr_lo_ = 0;
    uint32_t addr_hi_ = 0;
    uint32_t size_ = 0;
    uint32_t head_ = 0;
    uint32_t tail_ = 0;
    bool waiting_ = false;   // a packet is cut by TX_TAIL: wait for the next doorbell
    bool skipping_ = false;  // consuming the rest of an over-long run
    std::vector<Entry> entries_;
    std::vector<uint8_t> pkt_;  // gathered packet, at most kMaxPkt bytes
    std::vector<uint8_t> seg_;  // one TSO segment
};

}  // namespace scenic
