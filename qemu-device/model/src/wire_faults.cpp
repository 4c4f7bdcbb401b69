// SPDX-License-Identifier: MIT
#include "scenic/wire_faults.hpp"

#include <cstdio>
#include <stdexcept>
#include <utility>

#include "scenic/roce/packet.hpp"

namespace scenic::wire {

namespace {

constexpr uint8_t kEcnCe = 0b11;
constexpr uint32_t kGsiQpn = 1;  // the kernel's QP1 (fallback path): never matched

// splitmix64, one step per decision: the legacy loss injector's generator, kept so that a
// wire_drop_ppm run drops exactly the frames it dropped before.
uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

size_t dir_index(Dir d) { return d == Dir::kRx ? 0 : 1; }

}  // namespace

std::string format(const FaultRecord& r) {
    char buf[128];
    const std::string rule = r.rule == FaultRecord::kDropPpmRule ? "ppm" : std::to_string(r.rule);
    if (r.roce) {
        std::snprintf(buf, sizeof buf, "%s #%llu %s rule=%s qp=0x%06x psn=0x%06x op=0x%02x",
                      to_string(r.dir).data(), static_cast<unsigned long long>(r.seq),
                      to_string(r.action).data(), rule.c_str(), r.qpn, r.psn, r.opcode);
    } else {
        std::snprintf(buf, sizeof buf, "%s #- %s rule=%s qp=- psn=- op=-", to_string(r.dir).data(),
                      to_string(r.action).data(), rule.c_str());
    }
    return buf;
}

WireFaults::WireFaults(const FaultConfig& config, EventQueue& events, Hooks hooks)
    : events_(events), hooks_(std::move(hooks)), log_prefix_(config.log_prefix) {
    if (config.drop_ppm != 0) {
        Rule legacy;
        legacy.dir = Dir::kRx;
        legacy.action = Action::kDrop;
        legacy.ppm = config.drop_ppm;
        legacy.all_frames = true;
        rules_.push_back({legacy, FaultRecord::kDropPpmRule, config.seed});
    }
    const std::vector<Rule> parsed = parse_wire_faults(config.rules);
    for (size_t i = 0; i < parsed.size(); ++i) {
        // Each rule its own stream, so that adding a rule does not move another's faults.
        uint64_t mix = config.seed ^ (0xd1b54a32d192ed03ull * (i + 1));
        rules_.push_back({parsed[i], static_cast<int>(i), splitmix64(mix)});
    }
    if (!config.log_path.empty()) {
        log_file_.emplace(config.log_path, std::ios::app);
        if (!*log_file_) {
            throw std::invalid_argument(config.log_option + "=" + config.log_path +
                                        ": cannot open for appending");
        }
    }
    reset();
}

void WireFaults::reset() {
    for (RuleState& rs : rules_) {
        rs.prng = rs.seed;
        rs.matched = 0;
    }
    seq_ = {};
    for (const Held& h : held_) {
        events_.cancel(h.event);
        hooks_.counters().drops += h.copies;
    }
    held_.clear();
}

bool WireFaults::fires(RuleState& rs) {
    if (rs.rule.ppm) {
        return splitmix64(rs.prng) % 1'000'000 < *rs.rule.ppm;
    }
    ++rs.matched;
    return rs.matched >= rs.rule.nth &&
           (rs.rule.count == 0 || rs.matched - rs.rule.nth < rs.rule.count);
}

void WireFaults::record(Dir dir, uint64_t seq, Action a, int rule,
                        const std::optional<Roce>& roce) {
    FaultRecord r{dir, seq, a, rule, roce.has_value(), 0, 0, 0};
    if (roce) {
        r.qpn = roce->qpn;
        r.psn = roce->psn;
        r.opcode = roce->opcode;
    }
    if (log_.size() == kLogRecords) {
        log_.pop_front();
    }
    log_.push_back(r);
    if (log_file_) {
        *log_file_ << log_prefix_ << format(r) << '\n'
                   << std::flush;  // a crashed run keeps its faults
    }
}

void WireFaults::pass(Dir dir, std::span<const uint8_t> frame) {
    if (rules_.empty()) {
        emit(dir, frame);
        return;
    }
    std::optional<Roce> roce;
    if (const roce::ParseResult pr = roce::parse_frame(frame, roce::OpcodeSet::kRcAndSr);
        pr.ok() && pr.packet.transport.bth.dest_qp != kGsiQpn) {
        const auto& p = pr.packet;
        const size_t l3 = p.eth.size();
        const size_t l3_len = p.ipv4 ? p.ipv4->total_length
                                     : size_t{p.ipv6->payload_length} + roce::Ipv6Header::kSize;
        roce = Roce{
            p.transport.bth.dest_qp, p.transport.bth.psn, p.transport.bth.opcode, l3, l3 + l3_len,
            !p.ipv4.has_value()};
    }
    const uint64_t seq = roce ? ++seq_[dir_index(dir)] : 0;

    std::vector<uint8_t> copy;  // made on the first change
    auto writable = [&]() -> std::vector<uint8_t>& {
        if (copy.empty()) {
            copy.assign(frame.begin(), frame.end());
        }
        return copy;
    };
    unsigned copies = 1;
    const Rule* holder = nullptr;
    Counters& cnt = hooks_.counters();
    for (RuleState& rs : rules_) {
        const Rule& r = rs.rule;
        if (r.dir != dir || (!roce && !r.all_frames)) {
            continue;
        }
        if (roce && ((r.qp && *r.qp != roce->qpn) || (r.opcode && *r.opcode != roce->opcode) ||
                     (r.psn && *r.psn != roce->psn))) {
            continue;
        }
        if (!fires(rs)) {
            continue;
        }
        switch (r.action) {
            case Action::kDrop:
                ++cnt.drops;
                record(dir, seq, r.action, rs.index, roce);
                return;
            case Action::kCorrupt:
                // The last ICRC byte: any single-byte change fails the CRC.
                writable()[roce->l3_end - 1] ^= 0xff;
                ++cnt.corrupts;
                break;
            case Action::kEcn: {
                auto& f = writable();
                if (roce->ipv6) {
                    // Traffic class straddles bytes 0-1; its ECN bits are byte 1's bits 5:4.
                    f[roce->l3 + 1] = static_cast<uint8_t>(f[roce->l3 + 1] | kEcnCe << 4);
                } else {
                    // The ICRC masks TOS and the header checksum; the checksum must be redone.
                    f[roce->l3 + 1] = static_cast<uint8_t>(f[roce->l3 + 1] | kEcnCe);
                    const size_t ihl = size_t{f[roce->l3] & 0x0fu} * 4;
                    f[roce->l3 + 10] = 0;
                    f[roce->l3 + 11] = 0;
                    const uint16_t sum =
                        roce::internet_checksum(std::span<const uint8_t>(f).subspan(roce->l3, ihl));
                    f[roce->l3 + 10] = static_cast<uint8_t>(sum >> 8);
                    f[roce->l3 + 11] = static_cast<uint8_t>(sum);
                }
                ++cnt.ecn_marks;
                break;
            }
            case Action::kDup:
                copies = 2;
                ++cnt.dups;
                break;
            case Action::kDelay:
            case Action::kReorder:
                if (holder) {
                    continue;  // a frame is held once: the first holding rule decides
                }
                holder = &r;
                ++(r.action == Action::kDelay ? cnt.delays : cnt.reorders);
                break;
        }
        record(dir, seq, r.action, rs.index, roce);
    }
    const std::span<const uint8_t> out = copy.empty() ? frame : std::span<const uint8_t>(copy);
    if (holder) {
        hold(dir, std::vector<uint8_t>(out.begin(), out.end()), copies, *holder);
        return;
    }
    for (unsigned i = 0; i < copies; ++i) {
        emit(dir, out);
    }
}

void WireFaults::hold(Dir dir, std::vector<uint8_t> frame, unsigned copies, const Rule& rule) {
    const uint64_t id = next_held_++;
    const bool reorder = rule.action == Action::kReorder;
    const uint64_t delay_ns = reorder ? kReorderTimeoutNs : rule.delay_us * 1000;
    const EventQueue::Id ev = events_.schedule_in(delay_ns, [this, id] { release(id); });
    held_.push_back({id, dir, std::move(frame), copies,
                     reorder ? std::optional<uint32_t>(rule.depth) : std::nullopt, ev});
}

void WireFaults::release(uint64_t id) {
    for (auto it = held_.begin(); it != held_.end(); ++it) {
        if (it->id == id) {
            Held h = std::move(*it);
            held_.erase(it);
            events_.cancel(h.event);
            for (unsigned i = 0; i < h.copies; ++i) {
                emit(h.dir, h.frame);
            }
            return;
        }
    }
}

void WireFaults::emit(Dir dir, std::span<const uint8_t> frame) {
    (dir == Dir::kRx ? hooks_.rx : hooks_.tx)(frame);
    // Collect first: delivering may re-enter (a received request sends its ACK).
    std::vector<uint64_t> due;
    for (Held& h : held_) {
        if (h.dir == dir && h.overtakers && --*h.overtakers == 0) {
            due.push_back(h.id);
        }
    }
    for (const uint64_t id : due) {
        release(id);
    }
}

}  // namespace scenic::wire
