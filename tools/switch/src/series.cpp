// SPDX-License-Identifier: MIT
#include "scenic/sw/series.hpp"

#include <algorithm>
#include <stdexcept>

namespace scenic::sw {

namespace {
constexpr size_t kBufferBytes = 1 << 20;
}

Series::Series(const std::string& path, uint64_t origin_ns)
    : file_(path, std::ios::trunc), origin_ns_(origin_ns) {
    if (!file_) {
        throw std::invalid_argument("--series=" + path + ": cannot create");
    }
    buf_.reserve(kBufferBytes);
    write(std::string(kSeriesHeader) + "\n");
}

void Series::write(std::string_view row) {
    if (buf_.size() + row.size() > kBufferBytes) {
        flush();
    }
    buf_.append(row);
}

void Series::flush() {
    file_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    file_.flush();
    buf_.clear();
}

void Series::sample(Switch& sw, uint64_t now_ns) {
    const uint64_t t_us = (now_ns - std::min(now_ns, origin_ns_)) / 1000;
    for (unsigned p = 1; p <= sw.ports(); ++p) {
        const PortCounters c = sw.counters(p, now_ns);
        const uint64_t q = sw.queue_bytes(p, now_ns);
        const uint64_t qmax = std::max(sw.take_window_max(p), q);
        write(std::to_string(t_us) + "," + std::to_string(p) + "," + std::to_string(q) + "," +
              std::to_string(qmax) + "," + std::to_string(sw.queue_frames(p, now_ns)) + "," +
              std::to_string(c.tx_bytes) + "," + std::to_string(c.rx_bytes) + "," +
              std::to_string(c.ecn_marked) + "," + std::to_string(c.drop_tail) + "," +
              std::to_string(c.drop_red) + "," + std::to_string(c.pfc_xoff_tx) + "," +
              (sw.paused(p) ? "1" : "0") + "\n");
    }
}

void Series::mark(uint64_t now_ns, std::string_view text) {
    std::string clean(text);
    std::replace_if(
        clean.begin(), clean.end(), [](char ch) { return ch == ',' || ch == '\n' || ch == '\r'; },
        ' ');
    const uint64_t t_us = (now_ns - std::min(now_ns, origin_ns_)) / 1000;
    write(std::to_string(t_us) + ",#mark," + clean + "\n");
}

}  // namespace scenic::sw
