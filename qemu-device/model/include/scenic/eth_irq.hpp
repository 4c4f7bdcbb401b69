// SPDX-License-Identifier: MIT
// Interrupt moderation of one MSI-X vector (paper section 7.1: irq_coal / irq_time), at event
// level on the EventQueue. Same rules as the cycle-level RTL twin scenic::dp::IrqModerator
// (hw-rtl/rtl/scenic_irq_moderator.sv, CNT_W = TIME_W = 16): events accumulate in a pending
// count (saturating at 0xffff); the vector is raised when it is not masked, at least one event
// is pending and either the count reached IRQ_COAL (0: threshold off) or IRQ_TIME microseconds
// have elapsed since the first pending event (0: at once). Raising it restarts the count. The
// timeout keeps running while masked, so unmasking after it expired raises the vector at once.
#pragma once

#include <cstdint>
#include <optional>

#include "scenic/event_queue.hpp"
#include "scenic/host.hpp"

namespace scenic {

class IrqModerator {
  public:
    // The RTL's CNT_W / TIME_W: IRQ_COAL and IRQ_TIME use their low 16 bits.
    static constexpr uint32_t kCountMax = 0xffff;
    static constexpr uint32_t kTimeMask = 0xffff;
    static constexpr uint64_t kNsPerTick = 1000;  // IRQ_TIME is in microseconds

    // vector: the MSI-X vector raised; has_vector: false if the card has no such vector.
    IrqModerator(Host& host, EventQueue& events, unsigned vector, bool has_vector);
    ~IrqModerator();
    IrqModerator(const IrqModerator&) = delete;
    IrqModerator& operator=(const IrqModerator&) = delete;

    void reset();

    // Registers (values as written; the moderator uses the low 16 bits of coal and time).
    void set_coal(uint32_t coal);
    void set_time(uint32_t time_us);
    void set_mask(bool masked);
    [[nodiscard]] uint32_t coal() const { return coal_; }
    [[nodiscard]] uint32_t time_us() const { return time_; }
    [[nodiscard]] bool masked() const { return masked_; }
    [[nodiscard]] uint32_t irq_count() const { return irq_count_; }
    [[nodiscard]] uint32_t pending() const { return pending_; }

    // n events (frames written to the RX ring, TX commands consumed) happened now.
    void add_events(uint32_t n);

  private:
    void evaluate();
    void fire();
    void cancel_timer();

    Host& host_;
    EventQueue& events_;
    const unsigned vector_;
    const bool has_vector_;

    uint32_t coal_ = 0;
    uint32_t time_ = 0;
    bool masked_ = true;
    uint32_t irq_count_ = 0;
    uint32_t pending_ = 0;
    uint64_t first_ns_ = 0;  // when the first pending event happened
    std::optional<EventQueue::Id> timer_;
    uint64_t timer_deadline_ = 0;
};

}  // namespace scenic
