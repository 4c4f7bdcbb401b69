// SPDX-License-Identifier: MIT
// C++ twin of hw-rtl/rtl/scenic_prefilter.sv: transaction level (one call per frame).
// The classification is bit-exact with the RTL; timing (one beat per cycle, FIFO latency) is not
// modelled. Used by the QEMU device's RX path and by the differential testbench.
#pragma once

#include <cstdint>
#include <span>

namespace scenic::dp {

// Values are the RTL's class codes (m_axis_host_tuser).
enum class FrameClass : uint8_t { Roce = 0, Tcp = 1, Other = 2, Runt = 3 };
enum class PrefilterPort : uint8_t { Rdma, Host, Drop };

inline constexpr uint16_t kRoceV2UdpPort = 4791;
inline constexpr unsigned kPrefilterHdrBytes = 82;  // Ethernet + IPv4 with options + UDP

// Classifies one Ethernet frame (no FCS, no VLAN tag support: tagged frames are Other).
FrameClass classify_frame(std::span<const uint8_t> frame);

class Prefilter {
  public:
    struct Verdict {
        FrameClass cls;
        PrefilterPort port;
    };
    // Frame counters; the RTL counters are CNT_W bits wide and wrap, compare modulo 2^CNT_W.
    struct Counters {
        uint64_t rdma_roce = 0;
        uint64_t host_roce = 0;  // RoCE v2 frames while rdma_en was low
        uint64_t host_tcp = 0;
        uint64_t host_other = 0;
        uint64_t drop_runt = 0;
    };

    void set_rdma_enabled(bool en) { rdma_en_ = en; }
    [[nodiscard]] bool rdma_enabled() const { return rdma_en_; }
    // Classifies and steers one frame, counting it.
    Verdict process(std::span<const uint8_t> frame);
    [[nodiscard]] const Counters& counters() const { return cnt_; }
    void reset() { cnt_ = {}; }

  private:
    bool rdma_en_ = true;
    Counters cnt_;
};

}  // namespace scenic::dp
