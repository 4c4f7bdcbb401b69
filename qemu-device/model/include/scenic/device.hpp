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
#include "scenic/rdma_wire_loss.hpp"
#include "scenic/register_bus.hpp"
#include "scenic/scu_block.hpp"

namespace scenic {

class Device {
  public:
    // Throws std::invalid_argument if the configuration is invalid. host must outlive the device.
    Device(const Config& config, Host& host);
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    // BAR0.
    [[nodiscard]] uint64_t mmio_read(uint64_t offset, unsigned size) const {
        return bus_.read(offset, size);
    }
    void mmio_write(uint64_t offset, uint64_t value, unsigned size) {
        const auto scope = icrc_scope();
        bus_.write(offset, value, size);
    }

    // Function-level reset, power-on, or CORE.CTRL.soft_reset.
    void reset();

    // The RDMA doorbell BAR (regs::kDbBar). Reads return 0.
    [[nodiscard]] static uint64_t db_size() { return RdmaBlock::db_size(); }
    void db_write(uint64_t offset, uint64_t value, unsigned size) {
        const auto scope = icrc_scope();
        rdma_.db_write(offset, value, size);
    }

    // The wire. Loss injection (Config::wire_drop_ppm) drops before the card sees the frame.
    void eth_rx(std::span<const uint8_t> frame) {
        const auto scope = icrc_scope();
        if (wire_loss_.drop()) {
            ++rdma_.counters().wire_drops;
            return;
        }
        eth_.receive(frame);
    }
    [[nodiscard]] bool can_receive() const { return eth_.can_receive(); }
    void set_link(bool up) { eth_.set_link(up); }

    // The host timer requested through Host::timer_schedule expired.
    void timer_fire() {
        const auto scope = icrc_scope();
        events_.fire();
    }

    [[nodiscard]] const Config& config() const { return config_; }
    [[nodiscard]] const RegisterBus& bus() const { return bus_; }
    [[nodiscard]] const EthBlock& eth() const { return eth_; }
    [[nodiscard]] RdmaBlock& rdma() { return rdma_; }

  private:
    // The ICRC of the packets built and checked inside an entry point: the RTL with
    // Config::rtl_blocks, else the twin (see cosim::IcrcScope).
    [[nodiscard]] cosim::IcrcScope icrc_scope() const { return cosim::IcrcScope(icrc_.get()); }

    const Config config_;
    std::unique_ptr<cosim::IcrcEngine> icrc_;  // nullptr: the twin
    EventQueue events_;
    CoreBlock core_;
    EthBlock eth_;
    RdmaBlock rdma_;
    ScuBlock scu_;
    RegisterBus bus_;
    rdma::WireLoss wire_loss_;
};

}  // namespace scenic
