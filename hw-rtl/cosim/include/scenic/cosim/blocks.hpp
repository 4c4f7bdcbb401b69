// SPDX-License-Identifier: MIT
// Co-simulation: the datapath blocks the QEMU device model can run either as their C++ twin
// (hw-rtl/model, fast, default) or as the Verilator-compiled RTL (hw-rtl/rtl), behind one
// interface per block (DESIGN.md section 4). The device model sees only this header: no
// Verilator type leaves the scenic_rtl_cosim library.
//
//   prefilter  scenic_prefilter.sv (DATA_W 512): every frame the card receives
//   icrc       scenic_icrc.sv (DATA_W 512): the ICRC of every RoCE v2 packet built and checked
//
// An RTL engine clocks its Verilated model cycle by cycle for each frame / packet (both output
// ports always ready) and checks that the data it passes through comes out unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "scenic/dp/prefilter.hpp"

namespace scenic::cosim {

// Blocks selectable as RTL (QEMU property rtl=<list>), a bit mask.
enum RtlBlock : uint32_t {
    kRtlPrefilter = 1u << 0,
    kRtlIcrc = 1u << 1,
};
inline constexpr uint32_t kRtlAll = kRtlPrefilter | kRtlIcrc;

// "" or "none": no block; "all": every block; else a list of block names separated by ',' or
// '+' ("prefilter,icrc", "prefilter+icrc": QEMU splits -device options at commas, so its command
// line needs "rtl=prefilter+icrc" or "rtl=prefilter,,icrc"; spaces around names are ignored).
// Throws std::invalid_argument naming an unknown block and listing the known ones.
uint32_t parse_rtl_blocks(std::string_view list);
// "prefilter,icrc" for a mask ("none" for 0).
std::string rtl_block_names(uint32_t mask);

// Simulation effort of one RTL engine (both zero for a C++ twin).
struct SimStats {
    uint64_t transactions = 0;  // frames / packets through the Verilated model
    uint64_t cycles = 0;        // clock cycles simulated for them
};

// Totals over every RTL engine of the process, all blocks (tests and benchmarks).
[[nodiscard]] SimStats rtl_totals() noexcept;

// The prefilter: the interface of scenic::dp::Prefilter.
class PrefilterEngine {
  public:
    virtual ~PrefilterEngine() = default;
    virtual void set_rdma_enabled(bool en) = 0;
    [[nodiscard]] virtual bool rdma_enabled() const = 0;
    // Classifies and steers one frame, counting it.
    virtual dp::Prefilter::Verdict process(std::span<const uint8_t> frame) = 0;
    // The RTL's counters are 32 bits wide and wrap.
    [[nodiscard]] virtual const dp::Prefilter::Counters& counters() const = 0;
    // Clears the counters (rdma_enabled survives, as in the twin).
    virtual void reset() = 0;
    [[nodiscard]] virtual SimStats sim_stats() const { return {}; }
};

// The ICRC: the contract of scenic::dp::roce_icrc (L2-stripped packet, ICRC over all but its
// last 4 bytes with the invariant fields masked). Requires l3_packet.size() >= 4.
class IcrcEngine {
  public:
    virtual ~IcrcEngine() = default;
    virtual uint32_t icrc(std::span<const uint8_t> l3_packet) = 0;
    [[nodiscard]] virtual SimStats sim_stats() const { return {}; }
};

// rtl = false: the C++ twin; true: the Verilated RTL.
std::unique_ptr<PrefilterEngine> make_prefilter(bool rtl);
std::unique_ptr<IcrcEngine> make_icrc(bool rtl);

// The ICRC is computed deep inside the RoCE packet code (scenic::roce::icrc), which has no device
// handle: a device makes its engine current on its thread for the duration of each entry point
// (nested scopes restore the outer one: a card that sends to another card in the same process).
// nullptr: the C++ twin.
class IcrcScope {
  public:
    explicit IcrcScope(IcrcEngine* engine) noexcept;
    ~IcrcScope();
    IcrcScope(const IcrcScope&) = delete;
    IcrcScope& operator=(const IcrcScope&) = delete;

  private:
    IcrcEngine* prev_;
};
[[nodiscard]] IcrcEngine* current_icrc() noexcept;

}  // namespace scenic::cosim
