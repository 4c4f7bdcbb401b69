// SPDX-License-Identifier: MIT
// TX command engine of the ETH block: fetches struct scenic_tx_cmd from TX_HEAD up to TX_TAIL by
// DMA, validates each command, reads its frame by DMA and puts it on the wire. Every command is
// consumed (TX_HEAD moves past it), also one that is refused or cannot be read. The ETH block
// decides when to run it (tx_en, doorbell), bounds each run and does writeback, moderation and
// the continuation event.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "scenic/host.hpp"
#include "scenic/scu.hpp"

namespace scenic {

struct EthCounters;
// The SCU steering table as the ETH block sees it: true when a slot took the frame.
using SteerHook = std::function<bool(scu::Dir, std::span<const uint8_t>)>;

class EthTx {
  public:
    static constexpr uint32_t kCmdBytes = 16;  // SCENIC_TX_CMD_BYTES
    static constexpr uint32_t kMinFrame = 14;

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
    // Commands between head and tail.
    [[nodiscard]] bool pending() const { return valid() && head_ != tail_; }

    // Consumes at most max_cmds commands; frames are max_len bytes at most (MTU + 18). send
    // says whether frames go on the wire (link up); a frame `steer` takes goes to an SCU slot
    // instead (its output reaches the wire from there). Returns the number of commands consumed.
    uint32_t run(uint32_t max_cmds, uint32_t max_len, bool send, EthCounters& cnt,
                 const SteerHook& steer = {});

  private:
    Host& host_;
    uint32_t addr_lo_ = 0;
    uint32_t addr_hi_ = 0;
    uint32_t size_ = 0;
    uint32_t head_ = 0;
    uint32_t tail_ = 0;
    std::vector<uint8_t> frame_;
};

}  // namespace scenic
