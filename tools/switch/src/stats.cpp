// SPDX-License-Identifier: MIT
#include "scenic/sw/stats.hpp"

#include <string>

namespace scenic::sw {

nlohmann::json stats_json(const Switch& sw, uint64_t now_ns, uint64_t origin_ns) {
    nlohmann::json ports = nlohmann::json::object();
    for (unsigned p = 1; p <= sw.ports(); ++p) {
        const PortCounters c = sw.counters(p, now_ns);
        const Lateness& l = sw.lateness(p);
        const wire::Counters& w = sw.wire_counters(p);
        ports[std::to_string(p)] = {
            {"rx_frames", c.rx_frames},
            {"rx_bytes", c.rx_bytes},
            {"tx_frames", c.tx_frames},
            {"tx_bytes", c.tx_bytes},
            {"flood_frames", c.flood_frames},
            {"drop_tail", c.drop_tail},
            {"drop_tail_bytes", c.drop_tail_bytes},
            {"drop_red", c.drop_red},
            {"drop_headroom", c.drop_headroom},
            {"drop_fault", c.drop_fault},
            {"drop_reserved", c.drop_reserved},
            {"runt", c.runt},
            {"giant", c.giant},
            {"foreign", c.foreign},
            {"hairpin", c.hairpin},
            {"host_rx_drops", c.host_rx_drops},
            {"host_tx_drops", c.host_tx_drops},
            {"ecn_marked", c.ecn_marked},
            {"ecn_ce_in", c.ecn_ce_in},
            {"ect_frames", c.ect_frames},
            {"nonect_frames", c.nonect_frames},
            {"pfc_xoff_tx", c.pfc_xoff_tx},
            {"pfc_xon_tx", c.pfc_xon_tx},
            {"pfc_rx", c.pfc_rx},
            {"paused_ns", c.paused_ns},
            {"q_bytes", sw.queue_bytes(p, now_ns)},
            {"q_max_bytes", c.q_max_bytes},
            {"late_p50_ns", l.quantile_ns(0.5)},
            {"late_p99_ns", l.quantile_ns(0.99)},
            {"late_max_ns", l.max_ns},
            {"late_count", l.count},
            {"wire_drops", w.drops},
            {"wire_dups", w.dups},
            {"wire_reorders", w.reorders},
            {"wire_delays", w.delays},
            {"wire_corrupts", w.corrupts},
            {"wire_ecn_marks", w.ecn_marks},
        };
    }
    return {{"t_ns", now_ns - std::min(now_ns, origin_ns)},
            {"macs", sw.learned()},
            {"mac_evictions", sw.mac_evictions()},
            {"ports", ports}};
}

}  // namespace scenic::sw
