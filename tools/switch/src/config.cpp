// SPDX-License-Identifier: MIT
#include "scenic/sw/config.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "scenic/wire_fault_spec.hpp"

namespace scenic::sw {

namespace {

[[noreturn]] void fail(std::string_view option, std::string_view v, std::string_view why) {
    throw std::invalid_argument(std::string(option) + "=" + std::string(v) + ": " +
                                std::string(why));
}

uint64_t parse_u64(std::string_view option, std::string_view v) {
    uint64_t x = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
        fail(option, v, "not an unsigned integer");
    }
    return x;
}

uint64_t scaled(std::string_view option, std::string_view v, uint64_t unit) {
    if (v.empty()) {
        fail(option, v, "empty");
    }
    uint64_t mult = 1;
    std::string_view digits = v;
    switch (v.back()) {
        case 'K':
        case 'k':
            mult = unit;
            break;
        case 'M':
        case 'm':
            mult = unit * unit;
            break;
        case 'G':
        case 'g':
            mult = unit * unit * unit;
            break;
        default:
            break;
    }
    if (mult != 1) {
        digits.remove_suffix(1);
    }
    const uint64_t n = parse_u64(option, digits);
    if (n > std::numeric_limits<uint64_t>::max() / mult) {
        fail(option, v, "too large");
    }
    return n * mult;
}

double parse_prob(std::string_view option, std::string_view v) {
    const std::string s(v);
    size_t used = 0;
    double p = 0;
    try {
        p = std::stod(s, &used);
    } catch (const std::exception&) {
        fail(option, v, "not a number");
    }
    if (used != s.size() || !(p >= 0.0 && p <= 1.0)) {
        fail(option, v, "not a probability in [0, 1]");
    }
    return p;
}

// "N=rest" or "N:rest" with 1 <= N <= ports.
std::pair<unsigned, std::string_view> port_prefix(std::string_view option, std::string_view v,
                                                  char sep, unsigned ports) {
    const size_t pos = v.find(sep);
    if (pos == std::string_view::npos) {
        fail(option, v, std::string("expected PORT") + sep + "VALUE");
    }
    const uint64_t n = parse_u64(option, v.substr(0, pos));
    if (n < 1 || n > ports) {
        fail(option, v, "port out of range 1.." + std::to_string(ports));
    }
    return {static_cast<unsigned>(n), v.substr(pos + 1)};
}

uint16_t parse_udp_port(std::string_view option, std::string_view v) {
    const uint64_t n = parse_u64(option, v);
    if (n > 65535) {
        fail(option, v, "not a UDP port");
    }
    return static_cast<uint16_t>(n);
}

}  // namespace

uint64_t parse_size(std::string_view option, std::string_view v) { return scaled(option, v, 1024); }

uint64_t parse_rate(std::string_view option, std::string_view v) {
    const uint64_t r = scaled(option, v, 1000);
    if (r != 0 && r < 1000) {
        fail(option, v, "below 1 kbit/s");
    }
    if (r > 400'000'000'000) {
        fail(option, v, "above 400 Gbit/s");
    }
    return r;
}

bool parse_on_off(std::string_view option, std::string_view v) {
    if (v == "on") {
        return true;
    }
    if (v == "off") {
        return false;
    }
    fail(option, v, "expected on or off");
}

EcnPolicy parse_ecn(std::string_view option, std::string_view v) {
    const std::vector<std::string_view> f = wire::split(v, ':');
    EcnPolicy e;
    if (f[0] == "off" && f.size() == 1) {
        e.mode = EcnMode::kOff;
        return e;
    }
    if (f[0] != "step" && f[0] != "red") {
        fail(option, v, "expected off, step:k=K or red:min=K:max=K:p=P[:w=N][:drop-nonect]");
    }
    e.mode = f[0] == "step" ? EcnMode::kStep : EcnMode::kRed;
    for (size_t i = 1; i < f.size(); ++i) {
        const std::string_view kv = f[i];
        const size_t eq = kv.find('=');
        const std::string_view key = kv.substr(0, eq);
        const std::string_view val = eq == std::string_view::npos ? "" : kv.substr(eq + 1);
        if (e.mode == EcnMode::kStep && key == "k" && eq != std::string_view::npos) {
            e.k = parse_size(option, val);
        } else if (e.mode == EcnMode::kRed && key == "min" && eq != std::string_view::npos) {
            e.kmin = parse_size(option, val);
        } else if (e.mode == EcnMode::kRed && key == "max" && eq != std::string_view::npos) {
            e.kmax = parse_size(option, val);
        } else if (e.mode == EcnMode::kRed && key == "p" && eq != std::string_view::npos) {
            e.pmax = parse_prob(option, val);
        } else if (e.mode == EcnMode::kRed && key == "w" && eq != std::string_view::npos) {
            const uint64_t w = parse_u64(option, val);
            if (w < 1 || w > 20) {
                fail(option, v, "w must be 1..20");
            }
            e.ewma_shift = static_cast<unsigned>(w);
        } else if (e.mode == EcnMode::kRed && kv == "drop-nonect") {
            e.drop_nonect = true;
        } else {
            fail(option, v, "unknown field '" + std::string(kv) + "'");
        }
    }
    if (e.mode == EcnMode::kRed && e.kmin >= e.kmax) {
        fail(option, v, "red needs min < max");
    }
    return e;
}

void apply_port_opts(std::string_view option, std::string_view list, PortConfig& pc) {
    PortConfig out = pc;
    for (const std::string_view kv : wire::split(list, ',')) {
        const size_t eq = kv.find('=');
        if (eq == std::string_view::npos) {
            fail(option, kv, "expected KEY=VALUE (rate, buffer, overhead, ecn, pfc, faults)");
        }
        const std::string_view key = kv.substr(0, eq);
        const std::string_view val = kv.substr(eq + 1);
        const std::string opt = std::string(option) + " " + std::string(key);
        if (key == "rate") {
            out.rate_bps = parse_rate(opt, val);
        } else if (key == "buffer") {
            out.buffer = parse_size(opt, val);
        } else if (key == "overhead") {
            const uint64_t o = parse_u64(opt, val);
            if (o > 1024) {
                fail(opt, val, "above 1024 bytes");
            }
            out.overhead = static_cast<uint32_t>(o);
        } else if (key == "ecn") {
            out.ecn = parse_ecn(opt, val);
        } else if (key == "pfc") {
            out.pfc = parse_on_off(opt, val);
        } else if (key == "faults") {
            try {
                (void)wire::parse_wire_faults(val);
            } catch (const std::invalid_argument& e) {
                fail(opt, val, e.what());
            }
            out.faults = std::string(val);
        } else {
            fail(option, kv, "unknown key '" + std::string(key) + "'");
        }
    }
    pc = out;
}

Options parse_options(std::span<const std::string_view> args) {
    Options o;
    PortConfig common;
    unsigned ports = 0;
    std::vector<std::string_view> peers;
    std::vector<std::string_view> listens;
    std::vector<std::string_view> port_opts;
    for (size_t i = 0; i < args.size(); ++i) {
        std::string_view a = args[i];
        if (a == "-h" || a == "--help") {
            o.help = true;
            return o;
        }
        if (!a.starts_with("--")) {
            throw std::invalid_argument(std::string(a) + ": not an option (see --help)");
        }
        std::string_view name = a;
        std::string_view val;
        if (const size_t eq = a.find('='); eq != std::string_view::npos) {
            name = a.substr(0, eq);
            val = a.substr(eq + 1);
        } else {
            if (i + 1 >= args.size()) {
                throw std::invalid_argument(std::string(a) + ": needs a value");
            }
            val = args[++i];
        }
        if (name == "--ports") {
            const uint64_t n = parse_u64(name, val);
            if (n < 1 || n > kMaxPorts) {
                fail(name, val, "must be 1.." + std::to_string(kMaxPorts));
            }
            ports = static_cast<unsigned>(n);
        } else if (name == "--peer") {
            peers.push_back(val);
        } else if (name == "--listen") {
            listens.push_back(val);
        } else if (name == "--port-opt") {
            port_opts.push_back(val);
        } else if (name == "--rate") {
            common.rate_bps = parse_rate(name, val);
        } else if (name == "--buffer") {
            common.buffer = parse_size(name, val);
        } else if (name == "--overhead") {
            apply_port_opts(name, "overhead=" + std::string(val), common);
        } else if (name == "--ecn") {
            common.ecn = parse_ecn(name, val);
        } else if (name == "--pfc") {
            common.pfc = parse_on_off(name, val);
        } else if (name == "--pfc-xoff") {
            o.sw.pfc.xoff = parse_size(name, val);
        } else if (name == "--pfc-xon") {
            o.sw.pfc.xon = parse_size(name, val);
        } else if (name == "--pfc-headroom") {
            o.sw.pfc.headroom = parse_size(name, val);
        } else if (name == "--age-s") {
            const uint64_t s = parse_u64(name, val);
            if (s < 1 || s > 1'000'000) {
                fail(name, val, "must be 1..1000000");
            }
            o.sw.age_ns = s * 1'000'000'000;
        } else if (name == "--seed") {
            o.sw.seed = parse_u64(name, val);
        } else if (name == "--fault-log") {
            o.sw.fault_log = std::string(val);
        } else if (name == "--series") {
            o.series = std::string(val);
        } else if (name == "--sample-us") {
            o.sample_us = parse_u64(name, val);
            if (o.sample_us > 60'000'000) {
                fail(name, val, "above 60 s");
            }
        } else if (name == "--control") {
            o.control = std::string(val);
        } else if (name == "--stats-json") {
            o.stats_json = std::string(val);
        } else {
            throw std::invalid_argument(std::string(name) + ": unknown option (see --help)");
        }
    }
    if (ports == 0) {
        throw std::invalid_argument("--ports: required (1.." + std::to_string(kMaxPorts) + ")");
    }
    o.sw.ports.assign(ports, common);
    o.peer.assign(ports, 0);
    o.listen.assign(ports, 0);
    for (const std::string_view v : peers) {
        const auto [n, rest] = port_prefix("--peer", v, '=', ports);
        o.peer[n - 1] = parse_udp_port("--peer", rest);
        if (o.peer[n - 1] == 0) {
            fail("--peer", v, "port 0");
        }
    }
    for (const std::string_view v : listens) {
        const auto [n, rest] = port_prefix("--listen", v, '=', ports);
        o.listen[n - 1] = parse_udp_port("--listen", rest);
    }
    for (const std::string_view v : port_opts) {
        const auto [n, rest] = port_prefix("--port-opt", v, ':', ports);
        apply_port_opts("--port-opt " + std::to_string(n), rest, o.sw.ports[n - 1]);
    }
    for (unsigned p = 0; p < ports; ++p) {
        if (o.peer[p] == 0) {
            throw std::invalid_argument("--peer: port " + std::to_string(p + 1) +
                                        " has no peer (--peer " + std::to_string(p + 1) +
                                        "=UDPPORT)");
        }
    }
    if (o.sw.pfc.xon >= o.sw.pfc.xoff) {
        throw std::invalid_argument("--pfc-xon: must be below --pfc-xoff");
    }
    return o;
}

std::string usage() {
    return R"(usage: scenic-switch --ports N --peer 1=UDPPORT ... [options]
A congestible Ethernet switch for QEMU dgram netdevs on 127.0.0.1 (docs/cluster.md 3).
  --ports N               1..8 ports; port N is node N
  --peer N=UDPPORT        node N's QEMU socket on 127.0.0.1 (required for every port)
  --listen N=UDPPORT      port N's own socket (default: any free port, printed in READY)
  --rate R                line rate per port, bit/s, K/M/G = 10^3.. (default 1G; 0: no limit)
  --buffer B              egress buffer per port, bytes, K/M/G = 2^10.. (default 1M)
  --overhead O            wire bytes per frame beyond the frame (default 24)
  --ecn SPEC              off | step:k=K | red:min=K:max=K:p=P[:w=N][:drop-nonect] (step:k=64K)
  --pfc on|off            PFC towards the nodes (default off)
  --pfc-xoff B, --pfc-xon B, --pfc-headroom B   (128K, 64K, 512K)
  --port-opt N:K=V,...    per port: rate, buffer, overhead, ecn, pfc, faults (fault-wire.md)
  --age-s S               learning table ageing (default 300)
  --seed S                RED and fault-rule PRNG seed (default 1)
  --fault-log PATH        append injected faults ("p2 rx #57 drop rule=0 ...")
  --series PATH           queue-depth CSV; --sample-us N (default 1000, 0: none)
  --control PATH          UNIX stream socket: stats, reset, set N K=V, mark TEXT, quit
  --stats-json PATH       final stats at exit (default: switch.json next to --series/--control)
)";
}

}  // namespace scenic::sw
