// SPDX-License-Identifier: MIT
// The queue-depth time series (docs/cluster.md 3.9): one CSV row per port per sample, marker
// rows from the control socket's `mark`, written through a 1 MiB buffer.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "scenic/sw/core.hpp"

namespace scenic::sw {

inline constexpr std::string_view kSeriesHeader =
    "t_us,port,q_bytes,q_max_bytes,q_frames,tx_bytes,rx_bytes,ecn_marked,drop_tail,drop_red,"
    "pfc_xoff_tx,paused";

class Series {
  public:
    // Throws std::invalid_argument naming --series when the file cannot be created.
    Series(const std::string& path, uint64_t origin_ns);
    // One row per port at now_ns; takes each port's window maximum.
    void sample(Switch& sw, uint64_t now_ns);
    // "t_us,#mark,TEXT" (commas and line breaks in TEXT become spaces).
    void mark(uint64_t now_ns, std::string_view text);
    void flush();

  private:
    void write(std::string_view row);

    std::ofstream file_;
    uint64_t origin_ns_;
    std::string buf_;
};

}  // namespace scenic::sw
