// SPDX-License-Identifier: MIT
// The card's SCU slots (docs/scu.md 3, 5): slot 0 is the fixed passthrough, slots 1..N-1 hold
// the passthrough after reset and after an unload and take any image the registry knows. Loads,
// unloads, queries and PD binding as the admin commands ask for them (scu_commands.cpp), the
// CSR windows as BAR3 will map them, and the SCU AEQ events.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "scenic/admin.hpp"
#include "scenic/admin_queue.hpp"
#include "scenic/scu_registry.hpp"
#include "scenic/scu_slot.hpp"
#include "scenic/scu_steering.hpp"

namespace scenic::scu {

struct SlotManagerConfig {
    unsigned num_slots = 16;
    uint64_t reconfig_ns = 8'000'000;  // device property scu-reconfig-us (8 ms, the paper's)
    uint32_t max_image = 1U << 20;
    uint32_t iface = 0x00010000;  // slot interface 1.0
};

// What a query returns (SCU_QUERY_SLOT).
struct SlotInfo {
    admin::ScuSlotState state{};
    uint32_t kind = 0;
    uint16_t kind_version = 0;
    uint64_t build_id = 0;
    std::optional<uint32_t> pdn;
    admin::ScuStatus last_refusal{};
};

class SlotManager {
  public:
    SlotManager(const SlotManagerConfig& cfg, const SlotEnv& env,
                Registry registry = Registry::builtin());

    [[nodiscard]] unsigned num_slots() const { return static_cast<unsigned>(slots_.size()); }

    // Reconfiguration from an image already in card memory. Everything is checked before the
    // slot changes; the end comes as a RECONFIGURED event after reconfig_ns.
    admin::ScuStatus load(unsigned slot, std::span<const uint8_t> image);
    admin::ScuStatus unload(unsigned slot);
    [[nodiscard]] std::optional<SlotInfo> query(unsigned slot);
    admin::ScuStatus bind_pd(unsigned slot, std::optional<uint32_t> pdn);
    // SCU_RESET: the slot's SCU out of reset again (not while it reconfigures).
    admin::ScuStatus reset_slot(unsigned slot);

    // Status pages (docs/scu.md 4.4, scu_status_page.cpp). Setting one writes the whole page
    // once (a refused DMA changes nothing); 0 stops the writes. The traffic counters are
    // rewritten under an odd seq every kStatusPeriodNs and on flush.
    static constexpr uint64_t kStatusPeriodNs = 1'000'000;
    static constexpr size_t kStatusPageBytes = 4096;
    admin::ScuStatus set_status_page(unsigned slot, uint64_t addr);
    admin::ScuStatus flush_stats(unsigned slot);
    [[nodiscard]] uint64_t status_page(unsigned slot) const {
        return slot < pages_.size() ? pages_[slot].addr : 0;
    }
    // A completion of a QP on the slot (the RDMA engine): counted, and with a status page set,
    // that counter's 8 bytes written at once. Slots past NUM_SLOTS are ignored.
    void count_completion(unsigned slot, CompletionOp op);
    // The RDMA engine filled TLB entries: every slot's SCU may retry a missed memory request.
    void mem_ready();
    // SCU_QUERY_CAPS's page: the kind catalogue; returns the entries written (DMA error: nullopt).
    static constexpr size_t kCapsMaxKinds = 4096 / 48;
    std::optional<unsigned> write_caps(uint64_t addr);

    // An RDMA packet of a QP on `slot` through its SCU (docs/scu.md 3): slot 0 and indices past
    // NUM_SLOTS bypass (kBypass, `out` untouched); otherwise Slot::pass().
    Pass pass(unsigned slot, const Meta& m, std::span<const uint8_t> in, std::vector<uint8_t>& out);

    // The datapath into a slot (steering is the caller's).
    bool submit(unsigned slot, Dir d, const Meta& m, std::span<const uint8_t> data);

    // Steering (docs/scu.md 3). add: the rule's index, or bad_slot / bad_rule / table_full; del:
    // ok, bad_slot or no_rule (free, out of range or another slot's). Rules go with an unload
    // of their slot and a card reset; they stay across loads and SCU_RESET.
    admin::ScuStatus steer_add(unsigned slot, const SteerRule& rule, unsigned& index);
    admin::ScuStatus steer_del(unsigned slot, unsigned index);
    // A fallback frame: true when a rule took it into its slot (FIFO full or slot loading: the
    // frame is dropped and counted in the slot's fifo_drops of that direction).
    bool steer_frame(Dir d, std::span<const uint8_t> frame);
    [[nodiscard]] const SteeringTable& steering() const { return steer_; }

    // BAR3: 64 KiB per slot, 64-bit registers, 32-bit halves allowed. Slot 0 (fixed, never
    // owned) and windows past NUM_SLOTS read 0 and ignore writes; other sizes or misaligned
    // offsets read all-ones (the wrapper's SLVERR) and are ignored.
    uint64_t csr_window_read(uint64_t offset, unsigned size);
    void csr_window_write(uint64_t offset, uint64_t value, unsigned size);

    // The admin commands SCU_LOAD / UNLOAD / QUERY_SLOT / BIND_PD (scu_commands.cpp).
    CmdResult command(std::span<const uint8_t, kAqSqeBytes> entry,
                      std::span<uint8_t, kAqResultBytes> result);
    // Commands refused, by aq_status.
    [[nodiscard]] uint64_t refused(admin::AqStatus s) const {
        return refused_[static_cast<size_t>(s) % refused_.size()];
    }

    [[nodiscard]] const SlotCounters& counters(unsigned slot) const {
        return slots_.at(slot)->counters();
    }
    [[nodiscard]] Slot& slot(unsigned i) { return *slots_.at(i); }
    [[nodiscard]] uint32_t busy_mask() const;
    [[nodiscard]] uint32_t loaded_mask() const;
    [[nodiscard]] const SlotManagerConfig& config() const { return cfg_; }

    // Card reset: every slot back to the passthrough, counters, bindings and pages cleared.
    void reset();
    SlotManager(const SlotManager&) = delete;
    SlotManager& operator=(const SlotManager&) = delete;
    ~SlotManager();

  private:
    admin::ScuStatus refuse(unsigned slot, admin::ScuStatus s);
    [[nodiscard]] ImageInfo passthrough_info() const;
    admin::ScuStatus reconfigure(unsigned slot, const ImageInfo& info);
    // One status page write: the seq'd counters (whole: the rest of the page too).
    bool write_status(unsigned slot, bool whole);
    void arm_status_timer();

    struct StatusPage {
        uint64_t addr = 0;  // 0: none
        uint64_t seq = 0;
    };

    SlotManagerConfig cfg_;
    SlotEnv env_;
    Registry registry_;
    std::vector<std::unique_ptr<Slot>> slots_;
    std::array<uint64_t, 16> refused_{};
    std::array<StatusPage, 16> pages_{};
    std::optional<EventQueue::Id> status_timer_;
    SteeringTable steer_;
};

}  // namespace scenic::scu
