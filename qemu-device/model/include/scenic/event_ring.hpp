// SPDX-License-Identifier: MIT
// The card's event rings in host memory (docs/admin-queue.md 4): the asynchronous event queue
// (AEQ, 32-byte entries, registers in block core) and the completion event queue (CEQ, 8-byte
// entries, registers in block rdma) share this writer. It owns the ring registers (base, cfg,
// head, tail, lost), the phase, the AEQ's seq, and the overflow rule: the last free slot is kept
// for one OVERFLOW entry, which is written before any new event once a slot is free again.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "scenic/config.hpp"
#include "scenic/event_queue.hpp"
#include "scenic/host.hpp"

namespace scenic {

class EventRing {
  public:
    enum class Kind : uint8_t { kAeq, kCeq };
    static constexpr size_t kMaxEntry = 32;

    EventRing(Kind kind, const Config& config, Host& host, EventQueue& events);
    EventRing(const EventRing&) = delete;
    EventRing& operator=(const EventRing&) = delete;
    ~EventRing();

    [[nodiscard]] size_t entry_size() const { return kind_ == Kind::kAeq ? 32 : 8; }

    // Registers (the owning block decodes offsets). Base and log2_depth are ignored while
    // enable is 1; writing enable 0 resets the indices.
    [[nodiscard]] uint32_t base_lo() const { return base_lo_; }
    [[nodiscard]] uint32_t base_hi() const { return base_hi_; }
    [[nodiscard]] uint32_t cfg() const { return cfg_; }
    [[nodiscard]] uint32_t head() const { return head_; }
    [[nodiscard]] uint32_t tail() const { return tail_ & 0xffff; }
    [[nodiscard]] uint32_t lost() const { return lost_; }
    void write_base_lo(uint32_t v);
    void write_base_hi(uint32_t v);
    void write_cfg(uint32_t v);
    // Stores the index only; a pending OVERFLOW is written later from the timer (no DMA inside
    // an MMIO handler).
    void write_head(uint32_t v);

    // Writes one event: entry_size() bytes whose type field is set, phase (and, AEQ, seq) are
    // filled in here. false: dropped (queue disabled, full or stalled), counted in lost().
    // fatal: a CARD_FATAL, which may use the slot reserved for OVERFLOW.
    bool push(std::span<uint8_t> entry, bool fatal = false);

    // FAULT_INJECT.aeq_stall: the ring is treated as full.
    void set_stalled(bool s);
    // Called after an OVERFLOW entry was written (the TLB re-raises its pending misses), and
    // when a ring that could not take events can again (enabled, or unstalled).
    void set_on_overflow(std::function<void()> fn) { on_overflow_ = std::move(fn); }
    // An event pushed now would be written: the ring runs, is not stalled, and is not full with
    // an OVERFLOW waiting for the driver to free a slot.
    [[nodiscard]] bool can_deliver() const;
    // Called when a ring write failed (fatal RING_DMA; detail = low address bits).
    void set_on_dma_fault(std::function<void(uint64_t)> fn) { on_dma_fault_ = std::move(fn); }

    // The next seq the card gives an event (AEQ).
    [[nodiscard]] uint32_t seq() const { return seq_; }
    [[nodiscard]] bool enabled() const { return running(); }
    void reset();

  private:
    [[nodiscard]] unsigned log2_depth() const;
    [[nodiscard]] bool running() const;
    [[nodiscard]] uint32_t depth() const { return 1u << log2_depth(); }
    [[nodiscard]] uint32_t used() const { return (tail_ - head_) & 0xffff; }
    [[nodiscard]] uint64_t base() const { return uint64_t{base_hi_} << 32 | base_lo_; }
    // Fills phase (and seq) and DMAs the entry at the tail.
    bool write(std::span<uint8_t> entry);
    bool write_overflow();
    void drop();
    void schedule_flush();
    // From a register write or an OVERFLOW write: on_overflow_ runs from the timer (no DMA inside
    // an MMIO handler, no re-entry into push()).
    void schedule_ready();

    const Kind kind_;
    const Config& config_;
    Host& host_;
    EventQueue& events_;
    uint32_t base_lo_ = 0;
    uint32_t base_hi_ = 0;
    uint32_t cfg_ = 0;
    uint32_t head_ = 0;
    uint32_t tail_ = 0;  // free-running, 16 bits significant
    uint32_t lost_ = 0;
    uint32_t seq_ = 0;
    bool stalled_ = false;
    bool overflow_pending_ = false;
    uint32_t lost_since_overflow_ = 0;
    uint32_t first_lost_seq_ = 0;
    std::optional<EventQueue::Id> flush_;
    std::optional<EventQueue::Id> ready_;  // on_overflow_ after the ring became usable
    std::function<void()> on_overflow_;
    std::function<void(uint64_t)> on_dma_fault_;
};

}  // namespace scenic
