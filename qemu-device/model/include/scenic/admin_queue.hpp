// SPDX-License-Identifier: MIT
// The admin queue (docs/admin-queue.md 3): a submission ring of 128-byte commands and a
// completion ring of 32-byte completions in host memory, registers in block core. A doorbell
// (AQ_SQ_TAIL) only stores the index; the card fetches and executes from an EventQueue timer,
// one command at a time and in order, and writes each completion with the command's id. A full
// CQ stalls the queue (nothing is dropped); protocol errors halt it with a reason.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>

#include "scenic/admin.hpp"
#include "scenic/config.hpp"
#include "scenic/event_queue.hpp"
#include "scenic/host.hpp"

namespace scenic {

inline constexpr size_t kAqSqeBytes = admin::AqSqe<>::kSize;                      // 128
inline constexpr size_t kAqCqeBytes = admin::AqCqe<>::kSize;                      // 32
inline constexpr size_t kAqResultBytes = kAqCqeBytes - admin::AqCqeHdr<>::kSize;  // 24

// A command's outcome: status and, for MALFORMED / BAD_ARG / BAD_INDEX, the byte offset in the
// entry of the first field refused.
struct CmdResult {
    admin::AqStatus status = admin::AqStatus::kOk;
    uint16_t syndrome = 0;
    [[nodiscard]] bool ok() const { return status == admin::AqStatus::kOk; }
    bool operator==(const CmdResult&) const = default;
};

// Offset in the entry of field `name` of a generated struct's table (constexpr: a typo does not
// compile when used in a constant expression).
template <size_t N>
constexpr uint16_t field_offset(const std::array<admin::FieldDef, N>& fields,
                                std::string_view name) {
    for (const admin::FieldDef& f : fields) {
        if (f.name == name) {
            return static_cast<uint16_t>(f.offset);
        }
    }
    throw std::logic_error("scenic: no such admin field");
}

// Opcode known (BAD_OPCODE, syndrome: the opcode byte), then every byte and bit outside the
// request's fields zero (MALFORMED, syndrome: the first such byte). Uses the generated tables.
CmdResult check_request(std::span<const uint8_t, kAqSqeBytes> entry);

class AdminQueue {
  public:
    // Executes one well-formed command (check_request passed): writes its result (24 bytes, only
    // on success) and returns its status.
    using Exec = std::function<CmdResult(std::span<const uint8_t, kAqSqeBytes>,
                                         std::span<uint8_t, kAqResultBytes>)>;
    // Card time per command before the next one is fetched. The model takes none: the fetch
    // still runs from the timer (at the current time), after the doorbell's MMIO write returned.
    static constexpr uint64_t kCmdLatencyNs = 0;

    AdminQueue(const Config& config, Host& host, EventQueue& events, Exec exec,
               std::function<void(admin::AqHaltReason)> on_halt);
    AdminQueue(const AdminQueue&) = delete;
    AdminQueue& operator=(const AdminQueue&) = delete;
    ~AdminQueue();

    // Registers AQ_* (offsets in block core); false: not an AQ register.
    bool read(uint32_t offset, uint32_t& value) const;
    bool write(uint32_t offset, uint32_t value);

    // FAULT_INJECT.aq_stall / .swap_ids.
    void set_stalled(bool s);
    void swap_next_id() { swap_id_ = true; }
    [[nodiscard]] bool halted() const { return halted_; }
    void reset();

    // Per-command latency (tests: out-of-order ids must never appear however long each takes).
    void set_latency(std::function<uint64_t(uint8_t opcode)> fn) { latency_ = std::move(fn); }

  private:
    [[nodiscard]] unsigned log2_depth() const;
    [[nodiscard]] bool running() const;
    [[nodiscard]] uint32_t depth() const { return 1u << log2_depth(); }
    [[nodiscard]] uint32_t status() const;
    void kick(uint64_t delay_ns);
    void step();
    void halt(admin::AqHaltReason reason);

    const Config& config_;
    Host& host_;
    EventQueue& events_;
    Exec exec_;
    std::function<void(admin::AqHaltReason)> on_halt_;
    std::function<uint64_t(uint8_t)> latency_;
    uint32_t sq_base_lo_ = 0;
    uint32_t sq_base_hi_ = 0;
    uint32_t cq_base_lo_ = 0;
    uint32_t cq_base_hi_ = 0;
    uint32_t cfg_ = 0;
    uint32_t sq_tail_ = 0;
    uint32_t sq_head_ = 0;
    uint32_t cq_head_ = 0;
    uint32_t cq_tail_ = 0;
    bool halted_ = false;
    admin::AqHaltReason halt_reason_{};
    bool stalled_ = false;
    bool swap_id_ = false;
    std::optional<EventQueue::Id> pending_;
};

}  // namespace scenic
