// SPDX-License-Identifier: MIT
// The SCENIC card: its register blocks behind the BAR0 bus, the wire, time and reset.
// Everything the QEMU glue (or a test) needs goes through this class.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "scenic/config.hpp"
#include "scenic/core_block.hpp"
#include "scenic/cosim/blocks.hpp"
#include "scenic/eth_block.hpp"
#include "scenic/event_queue.hpp"
#include "scenic/host.hpp"
#include "scenic/rdma_block.hpp"
#include "scenic/register_bus.hpp"
#include "scenic/scu_block.hpp"
#include "scenic/wire_faults.hpp"
#include "scenic/wire_tx_host.hpp"

namespace scenic {

class Device {
  public:
    // Throws std::invalid_argument if the configuration is invalid. host must outlive the device.
    Device(const Config& config, Host& host);
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    // Every entry point below is guarded: a call that arrives while the card is already running
    // on the stack (its own DMA or MSI-X message routed back into a BAR, a frame looped back
    // from the wire, a reset requested from inside) is not executed nested. MMIO, doorbells,
    // frames and link changes are refused and counted (reentries()); a reset and a timer that
    // fires are deferred until the outer call returns.

    // BAR0.
    [[nodiscard]] uint64_t mmio_read(uint64_t offset, unsigned size) const {
        if (busy_) {
            ++reentries_;
            return 0;
        }
        if (core_.link_down()) {
            return size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (size * 8)) - 1;  // as off the bus
        }
        busy_ = true;
        const Unbusy unbusy{busy_};
        return bus_.read(offset, size);
    }
    void mmio_write(uint64_t offset, uint64_t value, unsigned size) {
        enter([&] {
            if (core_.link_down()) {
                return;
            }
            bus_.write(offset, value, size);
            guard_.set_off_bus(core_.link_down());
        });
    }

    // Function-level reset, power-on, or CORE.CTRL.soft_reset.
    void reset();

    // The RDMA doorbell BAR (regs::kDbBar). Reads return 0.
    [[nodiscard]] static uint64_t db_size() { return RdmaBlock::db_size(); }
    void db_write(uint64_t offset, uint64_t value, unsigned size) {
        enter([&] {
            if (!core_.link_down()) {
                rdma_.db_write(offset, value, size);
            }
        });
    }

    // BAR3 (regs::kScuBar): the SCU slots' CSR windows, 64 KiB each (docs/scu.md 3).
    [[nodiscard]] static uint64_t scu_bar_size() { return regs::kScuBarSize; }
    [[nodiscard]] uint64_t scu_read(uint64_t offset, unsigned size) {
        if (busy_) {
            ++reentries_;
            return 0;
        }
        if (core_.link_down()) {
            return size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (size * 8)) - 1;  // as off the bus
        }
        busy_ = true;
        const Unbusy unbusy{busy_};
        // An SCU's CSR read may raise an interrupt or schedule its timer: nothing re-enters.
        return scu_.slots().csr_window_read(offset, size);
    }
    void scu_write(uint64_t offset, uint64_t value, unsigned size) {
        enter([&] {
            if (!core_.link_down()) {
                scu_.slots().csr_window_write(offset, value, size);
            }
        });
    }

    // The wire. Received frames pass the fault-injecting wire's rx rules (and the legacy
    // Config::wire_drop_ppm) before the card sees them; sent ones its tx rules.
    void eth_rx(std::span<const uint8_t> frame) {
        enter([&] { wire_.receive(frame); });
    }
    [[nodiscard]] bool can_receive() const { return eth_.can_receive(); }
    // The LINK register follows at once; a LINK event goes to the AEQ.
    void set_link(bool up) {
        enter([&] {
            eth_.set_link(up);
            constexpr auto kSpeed =
                static_cast<uint16_t>((regs::eth::kLinkDefault & regs::eth::kLinkSpeedGbps.mask) >>
                                      regs::eth::kLinkSpeedGbps.shift);
            core_.link_event(up, kSpeed);
        });
    }

    // The host timer requested through Host::timer_schedule expired.
    void timer_fire() {
        if (busy_) {
            refire_ = true;  // the host timer is spent: ask for it again once the outer call ends
            return;
        }
        enter([&] { events_.fire(); });
    }

    // Calls refused because the card was already running (see above).
    [[nodiscard]] uint64_t reentries() const { return reentries_; }
    // DMA accesses and MSI-X messages refused because they landed on the card's own BARs.
    [[nodiscard]] uint64_t self_accesses_refused() const { return guard_.refused(); }
    // Timed events pending (bounded: one slot per QP and kind, see rdma::QpTimer).
    [[nodiscard]] size_t pending_events() const { return events_.size(); }

    [[nodiscard]] const Config& config() const { return config_; }
    [[nodiscard]] const RegisterBus& bus() const { return bus_; }
    [[nodiscard]] const EthBlock& eth() const { return eth_; }
    [[nodiscard]] RdmaBlock& rdma() { return rdma_; }
    [[nodiscard]] CoreBlock& core() { return core_; }
    [[nodiscard]] ScuBlock& scu() { return scu_; }
    // The last WireFaults::kLogRecords injected faults, oldest first.
    [[nodiscard]] const std::deque<wire::FaultRecord>& wire_fault_log() const {
        return wire_.log();
    }
    // Frames the wire holds (delay, reorder) until the timer or later frames release them.
    [[nodiscard]] size_t wire_held_frames() const { return wire_.held_frames(); }

  private:
    struct Unbusy {
        bool& busy;
        ~Unbusy() { busy = false; }
    };
    // Runs f as the outermost call into the card, then what was deferred during it.
    template <typename F>
    void enter(F&& f) {
        if (busy_) {
            ++reentries_;
            return;
        }
        busy_ = true;
        const Unbusy unbusy{busy_};
        const auto scope = icrc_scope();
        f();
        leave();
    }
    // Deferred work, still inside the outermost call: a requested reset, freeing retired
    // objects, re-arming a timer that fired while the card was busy.
    void leave();
    void do_reset();

    // The ICRC of the packets built and checked inside an entry point: the RTL with
    // Config::rtl_blocks, else the twin (see cosim::IcrcScope).
    [[nodiscard]] cosim::IcrcScope icrc_scope() const { return cosim::IcrcScope(icrc_.get()); }

    const Config config_;
    std::unique_ptr<cosim::IcrcEngine> icrc_;  // nullptr: the twin
    BarGuardHost guard_;                       // what every block reaches the host through
    mutable bool busy_ = false;
    mutable uint64_t reentries_ = 0;
    bool reset_pending_ = false;
    bool refire_ = false;
    EventQueue events_;
    wire::WireFaults wire_;
    wire::WireTxHost tx_host_;  // what the ETH block and the RDMA engine send through
    CoreBlock core_;
    EthBlock eth_;
    RdmaBlock rdma_;
    ScuBlock scu_;
    RegisterBus bus_;
};

}  // namespace scenic
