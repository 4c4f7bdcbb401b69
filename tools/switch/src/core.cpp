// SPDX-License-Identifier: MIT
#include "scenic/sw/core.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "scenic/event_queue.hpp"
#include "scenic/host.hpp"
#include "scenic/roce/headers.hpp"
#include "scenic/wire_faults.hpp"

namespace scenic::sw {

namespace {

constexpr uint64_t kPsPerNs = 1000;
constexpr uint64_t kPsPerS = 1'000'000'000'000;
constexpr uint8_t kEcnCe = 0b11;
constexpr uint32_t kPfcQuantumBits = 512;

uint64_t mac_key(const roce::Mac& m) {
    uint64_t k = 0;
    for (const uint8_t b : m) {
        k = k << 8 | b;
    }
    return k;
}

bool is_multicast(const roce::Mac& m) { return (m[0] & 1) != 0; }

// 01:80:c2:00:00:00..0f: bridges never forward these (STP, PAUSE/PFC, LLDP, ...).
bool is_reserved(const roce::Mac& m) {
    return m[0] == 0x01 && m[1] == 0x80 && m[2] == 0xc2 && m[3] == 0 && m[4] == 0 &&
           (m[5] & 0xf0) == 0;
}

}  // namespace

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void Lateness::add(uint64_t late_ns) {
    const uint64_t us = late_ns / 1000;
    const size_t b = us == 0 ? 0 : std::min<size_t>(std::bit_width(us), kLatenessBuckets - 1);
    ++buckets[b];
    ++count;
    max_ns = std::max(max_ns, late_ns);
}

uint64_t Lateness::quantile_ns(double q) const {
    if (count == 0) {
        return 0;
    }
    const auto need = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count)));
    uint64_t seen = 0;
    for (size_t b = 0; b < kLatenessBuckets; ++b) {
        seen += buckets[b];
        if (seen >= need && buckets[b] != 0) {
            // Bucket b holds [2^(b-1), 2^b) us; the last one everything above.
            return b + 1 == kLatenessBuckets ? max_ns : std::min(max_ns, (uint64_t{1} << b) * 1000);
        }
    }
    return max_ns;
}

Classified classify(std::span<const uint8_t> frame) {
    Classified c;
    const auto eth = roce::EthHeader::decode(frame);
    if (!eth) {
        return c;
    }
    const size_t l3 = eth->size();
    const std::span<const uint8_t> ip = frame.subspan(std::min(l3, frame.size()));
    size_t l4 = 0;
    uint8_t proto = 0;
    if (eth->ethertype == roce::kEtherTypeIpv4) {
        const auto h = roce::Ipv4Header::decode(ip);
        if (!h) {
            return c;
        }
        c.ecn = h->ecn;
        proto = h->protocol;
        // Only the first fragment carries the UDP header.
        l4 = h->frag_offset == 0 ? l3 + h->size() : 0;
    } else if (eth->ethertype == roce::kEtherTypeIpv6) {
        const auto h = roce::Ipv6Header::decode(ip);
        if (!h) {
            return c;
        }
        c.ecn = h->traffic_class & 3;
        c.ipv6 = true;
        proto = h->next_header;
        l4 = l3 + roce::Ipv6Header::kSize;
    } else {
        return c;
    }
    c.ip = true;
    c.l3 = l3;
    if (proto == roce::kIpProtoUdp && l4 != 0 && l4 <= frame.size()) {
        const auto udp = roce::UdpHeader::decode(frame.subspan(l4));
        if (udp && udp->dport == roce::kRoceV2Port) {
            c.priority = kRocePriority;
        }
    }
    return c;
}

void mark_ce(std::span<uint8_t> f, const Classified& c) {
    const size_t l3 = c.l3;
    if (c.ipv6) {
        // Traffic class straddles bytes 0-1; its ECN bits are byte 1's bits 5:4.
        f[l3 + 1] = static_cast<uint8_t>(f[l3 + 1] | kEcnCe << 4);
        return;
    }
    // Nothing else covers the TOS byte (the ICRC masks it): only the header checksum changes.
    f[l3 + 1] = static_cast<uint8_t>(f[l3 + 1] | kEcnCe);
    const size_t ihl = size_t{f[l3] & 0x0fu} * 4;
    f[l3 + 10] = 0;
    f[l3 + 11] = 0;
    const uint16_t sum = roce::internet_checksum(f.subspan(l3, ihl));
    f[l3 + 10] = static_cast<uint8_t>(sum >> 8);
    f[l3 + 11] = static_cast<uint8_t>(sum);
}

std::array<uint8_t, kPfcFrameBytes> pfc_frame(unsigned port, uint16_t quanta) {
    std::array<uint8_t, kPfcFrameBytes> f{};
    const std::array<uint8_t, 6> dst{0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
    std::copy(dst.begin(), dst.end(), f.begin());
    const std::array<uint8_t, 6> src{0x02, 0x5c, 0, 0, 0, static_cast<uint8_t>(port)};
    std::copy(src.begin(), src.end(), f.begin() + 6);
    f[12] = kEtherTypeMacControl >> 8;
    f[13] = kEtherTypeMacControl & 0xff;
    f[14] = kOpcodePfc >> 8;
    f[15] = kOpcodePfc & 0xff;
    f[16] = 0;
    f[17] = 1u << kRocePriority;  // priority-enable vector
    const size_t q = 18 + 2 * kRocePriority;
    f[q] = static_cast<uint8_t>(quanta >> 8);
    f[q + 1] = static_cast<uint8_t>(quanta);
    return f;
}

// The fault rules' EventQueue runs on the time of the call being handled.
class Switch::Timers final : public TimerHost {
  public:
    uint64_t now_ns() override { return now; }
    void timer_schedule(uint64_t deadline_ns) override { deadline = deadline_ns; }
    void timer_cancel() override { deadline.reset(); }

    uint64_t now = 0;
    std::optional<uint64_t> deadline;
    EventQueue events{*this};
};

struct Switch::Port {
    PortConfig cfg;
    PortCounters cnt;
    wire::Counters wire_cnt;
    Lateness late;
    std::unique_ptr<wire::WireFaults> faults;
    std::deque<Queued> fifo;
    uint64_t fifo_bytes = 0;  // every frame in fifo (due ones too until dequeue_due)
    uint64_t last_depart_ps = 0;
    uint64_t rate_rem = 0;  // remainder of the last (bits * 10^12) / rate, carried
    uint64_t window_max = 0;
    double red_avg = 0;
    uint64_t prng = 0;
    // PFC, as an ingress port.
    uint64_t ingress_bytes = 0;
    bool paused = false;
    uint64_t pause_start_ns = 0;
    uint64_t next_refresh_ns = 0;
};

Switch::Switch(const SwitchConfig& config, Output out, uint64_t now_ns)
    : config_(config),
      out_(std::move(out)),
      origin_ns_(now_ns),
      now_ns_(now_ns),
      timers_(std::make_unique<Timers>()) {
    if (config_.ports.empty() || config_.ports.size() > kMaxPorts) {
        throw std::invalid_argument("--ports: must be 1.." + std::to_string(kMaxPorts));
    }
    validate_pfc_buffers(config_.ports);
    timers_->now = now_ns;
    for (unsigned p = 1; p <= config_.ports.size(); ++p) {
        auto port = std::make_unique<Port>();
        port->cfg = config_.ports[p - 1];
        port->prng = config_.seed ^ (0x9e3779b97f4a7c15ull * p);
        ports_.push_back(std::move(port));
        set_faults(p, config_.ports[p - 1].faults);
    }
}

Switch::~Switch() = default;

Switch::Port& Switch::port(unsigned p) {
    if (p < 1 || p > ports_.size()) {
        throw std::out_of_range("scenic-switch: no port " + std::to_string(p));
    }
    return *ports_[p - 1];
}

const Switch::Port& Switch::port(unsigned p) const {
    if (p < 1 || p > ports_.size()) {
        throw std::out_of_range("scenic-switch: no port " + std::to_string(p));
    }
    return *ports_[p - 1];
}

uint64_t Switch::rel_ps(uint64_t now_ns) const {
    return (now_ns >= origin_ns_ ? now_ns - origin_ns_ : 0) * kPsPerNs;
}

void Switch::validate_pfc_buffers(const std::vector<PortConfig>& ports) const {
    const bool any = std::any_of(ports.begin(), ports.end(), [](const auto& p) { return p.pfc; });
    if (!any) {
        return;
    }
    const PfcConfig& pfc = config_.pfc;
    if (pfc.xon >= pfc.xoff) {
        throw std::invalid_argument("--pfc-xon: must be below --pfc-xoff");
    }
    const uint64_t need = (ports.size() - 1) * (pfc.xoff + pfc.headroom);
    for (size_t i = 0; i < ports.size(); ++i) {
        if (ports[i].buffer < need) {
            throw std::invalid_argument("--buffer: port " + std::to_string(i + 1) + " has " +
                                        std::to_string(ports[i].buffer) +
                                        " bytes; PFC needs (ports - 1) * (XOFF + " +
                                        "HEADROOM) = " + std::to_string(need));
        }
        if (ports[i].pfc && ports[i].rate_bps == 0) {
            throw std::invalid_argument("--pfc: port " + std::to_string(i + 1) +
                                        " has no rate (--rate 0): pause quanta need one");
        }
    }
}

void Switch::receive(unsigned in, std::span<const uint8_t> frame, uint64_t now_ns) {
    Port& ip = port(in);
    advance(now_ns);
    if (frame.size() < kMinFrame) {
        ++ip.cnt.runt;
        return;
    }
    if (frame.size() > kMaxFrame) {
        ++ip.cnt.giant;
        return;
    }
    const uint32_t drops_before = ip.wire_cnt.drops;
    ip.faults->receive(frame);  // -> ingress() unless a rule drops or holds it
    ip.cnt.drop_fault += ip.wire_cnt.drops - drops_before;
}

void Switch::ingress(unsigned in, std::span<const uint8_t> frame) {
    Port& ip = port(in);
    const auto eth = roce::EthHeader::decode(frame);
    if (!eth) {
        ++ip.cnt.runt;
        return;
    }
    if (eth->ethertype == kEtherTypeMacControl) {
        ++ip.cnt.pfc_rx;
        return;
    }
    ++ip.cnt.rx_frames;
    ip.cnt.rx_bytes += frame.size();
    if (!is_multicast(eth->src)) {
        learn(eth->src, in);
    }
    if (is_reserved(eth->dst)) {
        ++ip.cnt.drop_reserved;
        return;
    }
    const Classified c = classify(frame);
    if (!is_multicast(eth->dst)) {
        if (const auto out = lookup(eth->dst, now_ns_)) {
            if (*out == in) {
                ++ip.cnt.hairpin;
                return;
            }
            enqueue(in, *out, frame, c, false);
            return;
        }
    }
    for (unsigned out = 1; out <= ports_.size(); ++out) {
        if (out != in) {
            enqueue(in, out, frame, c, true);
        }
    }
}

void Switch::learn(const roce::Mac& src, unsigned p) {
    const uint64_t key = mac_key(src);
    if (auto it = macs_.find(key); it != macs_.end()) {
        it->second = {p, now_ns_};
        return;
    }
    if (macs_.size() >= config_.max_macs) {
        // Full: the entry seen longest ago goes (aged ones first, as they are the oldest).
        auto oldest = std::min_element(
            macs_.begin(), macs_.end(),
            [](const auto& a, const auto& b) { return a.second.seen_ns < b.second.seen_ns; });
        macs_.erase(oldest);
        ++mac_evictions_;
    }
    macs_.emplace(key, MacEntry{p, now_ns_});
}

std::optional<unsigned> Switch::lookup(const roce::Mac& mac, uint64_t now_ns) const {
    const auto it = macs_.find(mac_key(mac));
    if (it == macs_.end() || now_ns - it->second.seen_ns >= config_.age_ns) {
        return std::nullopt;
    }
    return it->second.port;
}

void Switch::enqueue(unsigned in, unsigned out, std::span<const uint8_t> frame, const Classified& c,
                     bool flooded) {
    Port& op = port(out);
    Port& ip = port(in);
    const uint64_t now_ps = rel_ps(now_ns_);
    const uint64_t len = frame.size();
    const uint64_t q = op.fifo_bytes;  // dequeue_due ran: exactly Q(a_n)
    const bool lossless = ip.cfg.pfc && c.priority == kRocePriority;
    if (flooded) {
        ++op.cnt.flood_frames;
    }
    if (q + len > op.cfg.buffer) {
        ++op.cnt.drop_tail;
        op.cnt.drop_tail_bytes += len;
        if (lossless) {
            ++op.cnt.drop_headroom;
        }
        return;
    }
    const bool ect = c.ip && c.ecn != 0;
    if (c.ip && c.ecn == kEcnCe) {
        ++op.cnt.ecn_ce_in;
    }
    ++(ect ? op.cnt.ect_frames : op.cnt.nonect_frames);

    // The marking decision on Q(a_n).
    bool mark = false;
    const EcnPolicy& e = op.cfg.ecn;
    if (e.mode == EcnMode::kStep) {
        mark = ect && q > e.k;
    } else if (e.mode == EcnMode::kRed) {
        double avg = static_cast<double>(q);
        if (e.ewma_shift) {
            const double w = std::ldexp(1.0, -static_cast<int>(*e.ewma_shift));
            if (q == 0) {
                // Idle since the last departure: decay as if m small frames had left meanwhile.
                const uint64_t idle_ps =
                    now_ps > op.last_depart_ps ? now_ps - op.last_depart_ps : 0;
                const uint64_t frame_ps =
                    op.cfg.rate_bps == 0 ? 0
                                         : (len + op.cfg.overhead) * 8 * kPsPerS / op.cfg.rate_bps;
                const double m = frame_ps == 0 ? 1e9 : static_cast<double>(idle_ps / frame_ps);
                op.red_avg *= std::pow(1.0 - w, m);
            } else {
                op.red_avg += (static_cast<double>(q) - op.red_avg) * w;
            }
            avg = op.red_avg;
        }
        double p = 0;
        const auto kmin = static_cast<double>(e.kmin);
        const auto kmax = static_cast<double>(e.kmax);
        if (avg > kmax) {
            p = 1;
        } else if (avg > kmin) {
            p = e.pmax * (avg - kmin) / (kmax - kmin);
        }
        if (p > 0 && (ect || e.drop_nonect)) {
            const double u = static_cast<double>(splitmix64(op.prng) >> 11) * 0x1p-53;
            if (u < p) {
                if (!ect) {
                    --op.cnt.nonect_frames;
                    ++op.cnt.drop_red;
                    return;
                }
                mark = true;
            }
        }
    }

    Queued qf{std::vector<uint8_t>(frame.begin(), frame.end()), 0, in, lossless};
    if (mark && c.ecn != kEcnCe) {
        mark_ce(qf.frame, c);
        ++op.cnt.ecn_marked;
    }
    // d_n = max(a_n, d_(n-1)) + (len + O) * 8 / R, in ps, the division's remainder carried.
    const uint64_t start = std::max(now_ps, op.last_depart_ps);
    uint64_t tx_ps = 0;
    if (op.cfg.rate_bps != 0) {
        if (start != op.last_depart_ps) {
            op.rate_rem = 0;  // the link went idle: no fraction carries over
        }
        const uint64_t num = (len + op.cfg.overhead) * 8 * kPsPerS + op.rate_rem;
        tx_ps = num / op.cfg.rate_bps;
        op.rate_rem = num % op.cfg.rate_bps;
    }
    qf.depart_ps = start + tx_ps;
    op.last_depart_ps = qf.depart_ps;
    op.fifo_bytes += len;
    op.cnt.q_max_bytes = std::max(op.cnt.q_max_bytes, op.fifo_bytes);
    op.window_max = std::max(op.window_max, op.fifo_bytes);
    if (lossless) {
        ip.ingress_bytes += len;
    }
    const bool due_now = qf.depart_ps <= now_ps;
    op.fifo.push_back(std::move(qf));
    if (lossless) {
        pfc_check(in, now_ns_);
    }
    if (due_now) {
        dequeue_due(now_ns_);  // rate 0: leaves at once
    }
}

void Switch::dequeue_due(uint64_t now_ns) {
    const uint64_t now_ps = rel_ps(now_ns);
    for (unsigned p = 1; p <= ports_.size(); ++p) {
        Port& op = port(p);
        // Bounded by the queue: each pass removes one frame.
        while (!op.fifo.empty() && op.fifo.front().depart_ps <= now_ps) {
            Queued f = std::move(op.fifo.front());
            op.fifo.pop_front();
            op.fifo_bytes -= f.frame.size();
            op.late.add((now_ps - f.depart_ps) / kPsPerNs);
            ++op.cnt.tx_frames;
            op.cnt.tx_bytes += f.frame.size();
            if (f.lossless) {
                port(f.ingress).ingress_bytes -= f.frame.size();
                pfc_check(f.ingress, now_ns);
            }
            const uint32_t drops_before = op.wire_cnt.drops;
            op.faults->transmit(f.frame);
            op.cnt.drop_fault += op.wire_cnt.drops - drops_before;
        }
    }
}

uint64_t Switch::pause_ns(unsigned p) const {
    const uint64_t rate = port(p).cfg.rate_bps;
    return rate == 0 ? 0 : uint64_t{kPfcQuantaMax} * kPfcQuantumBits * 1'000'000'000 / rate;
}

void Switch::send_pfc(unsigned p, uint16_t quanta) {
    const auto f = pfc_frame(p, quanta);
    out_(p, f);  // not queued, not charged to the schedule, not seen by the fault rules
}

void Switch::pfc_check(unsigned p, uint64_t now_ns) {
    Port& ip = port(p);
    if (!ip.cfg.pfc) {
        return;
    }
    if (!ip.paused && ip.ingress_bytes >= config_.pfc.xoff) {
        ip.paused = true;
        ip.pause_start_ns = now_ns;
        ip.next_refresh_ns = now_ns + pause_ns(p) / 2;
        ++ip.cnt.pfc_xoff_tx;
        send_pfc(p, kPfcQuantaMax);
    } else if (ip.paused && ip.ingress_bytes <= config_.pfc.xon) {
        ip.paused = false;
        ip.cnt.paused_ns += now_ns - ip.pause_start_ns;
        ++ip.cnt.pfc_xon_tx;
        send_pfc(p, 0);
    }
}

void Switch::advance(uint64_t now_ns) {
    now_ns = std::max(now_ns, now_ns_);  // time never goes back
    now_ns_ = now_ns;
    timers_->now = now_ns;
    dequeue_due(now_ns);
    // Held frames of the fault rules; each release may enqueue, bounded by what is held.
    for (size_t guard = 0; timers_->deadline && *timers_->deadline <= now_ns && guard < 1024;
         ++guard) {
        timers_->deadline.reset();
        timers_->events.fire();
        dequeue_due(now_ns);
    }
    for (unsigned p = 1; p <= ports_.size(); ++p) {
        Port& ip = port(p);
        if (ip.paused && now_ns >= ip.next_refresh_ns) {
            // Still above XON (else pfc_check had sent XON): repeat the XOFF before it expires.
            ip.next_refresh_ns = now_ns + pause_ns(p) / 2;
            ++ip.cnt.pfc_xoff_tx;
            send_pfc(p, kPfcQuantaMax);
        }
    }
}

std::optional<uint64_t> Switch::next_deadline_ns() const {
    std::optional<uint64_t> next = timers_->deadline;
    auto take = [&next](uint64_t t) { next = next ? std::min(*next, t) : t; };
    for (const auto& p : ports_) {
        if (!p->fifo.empty()) {
            // The first ns at or after the departure.
            take(origin_ns_ + (p->fifo.front().depart_ps + kPsPerNs - 1) / kPsPerNs);
        }
        if (p->paused) {
            take(p->next_refresh_ns);
        }
    }
    return next;
}

void Switch::set_rate(unsigned p, uint64_t rate_bps) {
    Port& op = port(p);
    if (rate_bps == 0 && op.cfg.pfc) {
        throw std::invalid_argument("rate: port " + std::to_string(p) +
                                    " has PFC on; pause quanta need a rate");
    }
    op.cfg.rate_bps = rate_bps;  // from the next frame scheduled
    op.rate_rem = 0;
    config_.ports[p - 1].rate_bps = rate_bps;
}

void Switch::set_ecn(unsigned p, const EcnPolicy& ecn) {
    port(p).cfg.ecn = ecn;
    port(p).red_avg = 0;
    config_.ports[p - 1].ecn = ecn;
}

void Switch::set_pfc(unsigned p, bool on, uint64_t now_ns) {
    Port& ip = port(p);
    std::vector<PortConfig> next = config_.ports;
    next[p - 1].pfc = on;
    validate_pfc_buffers(next);
    if (!on && ip.paused) {
        // Release the node now rather than leave it paused until its quanta expire.
        ip.paused = false;
        ip.cnt.paused_ns += now_ns - ip.pause_start_ns;
        ++ip.cnt.pfc_xon_tx;
        send_pfc(p, 0);
    }
    ip.cfg.pfc = on;
    config_.ports[p - 1].pfc = on;
}

void Switch::set_faults(unsigned p, const std::string& spec) {
    Port& pt = port(p);
    wire::FaultConfig fc;
    fc.rules = spec;
    fc.seed = config_.seed ^ (0xd6e8feb86659fd93ull * p);
    fc.log_path = config_.fault_log;
    fc.log_prefix = "p" + std::to_string(p) + " ";
    fc.log_option = "--fault-log";
    wire::WireFaults::Hooks hooks{[this, p](std::span<const uint8_t> f) { ingress(p, f); },
                                  [this, p](std::span<const uint8_t> f) { out_(p, f); },
                                  [this, p]() -> wire::Counters& { return port(p).wire_cnt; }};
    auto next = std::make_unique<wire::WireFaults>(fc, timers_->events, std::move(hooks));
    if (pt.faults) {
        pt.faults->reset();  // held frames are dropped (counted) with the old rules
    }
    pt.faults = std::move(next);
    pt.cfg.faults = spec;
    config_.ports[p - 1].faults = spec;
}

void Switch::reset_counters(uint64_t now_ns) {
    for (auto& p : ports_) {
        p->cnt = PortCounters{};
        p->wire_cnt = wire::Counters{};
        p->late = Lateness{};
        p->cnt.q_max_bytes = p->fifo_bytes;
        p->window_max = p->fifo_bytes;
        if (p->paused) {
            p->pause_start_ns = now_ns;
        }
    }
    mac_evictions_ = 0;
}

PortCounters Switch::counters(unsigned p, uint64_t now_ns) const {
    const Port& pt = port(p);
    PortCounters c = pt.cnt;
    if (pt.paused && now_ns > pt.pause_start_ns) {
        c.paused_ns += now_ns - pt.pause_start_ns;
    }
    return c;
}

PortCounters& Switch::mutable_counters(unsigned p) { return port(p).cnt; }
const Lateness& Switch::lateness(unsigned p) const { return port(p).late; }
const wire::Counters& Switch::wire_counters(unsigned p) const { return port(p).wire_cnt; }

uint64_t Switch::queue_bytes(unsigned p, uint64_t now_ns) const {
    const Port& pt = port(p);
    const uint64_t t = rel_ps(now_ns);
    uint64_t q = pt.fifo_bytes;
    for (const Queued& f : pt.fifo) {
        if (f.depart_ps > t) {
            break;
        }
        q -= f.frame.size();  // due but not yet handed over: no longer in Q(t)
    }
    return q;
}

uint64_t Switch::queue_frames(unsigned p, uint64_t now_ns) const {
    const Port& pt = port(p);
    const uint64_t t = rel_ps(now_ns);
    uint64_t n = pt.fifo.size();
    for (const Queued& f : pt.fifo) {
        if (f.depart_ps > t) {
            break;
        }
        --n;
    }
    return n;
}

uint64_t Switch::take_window_max(unsigned p) {
    Port& pt = port(p);
    const uint64_t m = pt.window_max;
    pt.window_max = pt.fifo_bytes;
    return m;
}

uint64_t Switch::ingress_bytes(unsigned p) const { return port(p).ingress_bytes; }
bool Switch::paused(unsigned p) const { return port(p).paused; }
double Switch::red_average(unsigned p) const { return port(p).red_avg; }

}  // namespace scenic::sw
