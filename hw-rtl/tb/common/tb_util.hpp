// SPDX-License-Identifier: MIT
// Shared testbench helpers: seeds, pause patterns, byte access to Verilator signals,
// AXI4-Stream source/sink drivers. Testbench-only; nothing here belongs in the model library.
#pragma once

#include <verilated.h>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace scenic::tb {

using Frame = std::vector<uint8_t>;

// One clock cycle of a DUT with a `clk` input: settle the inputs with clk low, rising edge,
// back to low.
template <class Dut>
void clock_cycle(Dut& dut) {
    dut.clk = 0;
    dut.eval();
    dut.clk = 1;
    dut.eval();
    dut.clk = 0;
    dut.eval();
}

// Seeds for randomised tests: SCENIC_SEED=<n> replays one seed, otherwise `count` fixed ones.
inline std::vector<uint64_t> seeds(unsigned count, uint64_t base = 1) {
    if (const char* s = std::getenv("SCENIC_SEED"); s && *s) return {std::strtoull(s, nullptr, 0)};
    std::vector<uint64_t> v;
    for (unsigned i = 0; i < count; ++i) v.push_back(base + i * 0x9e3779b97f4a7c15ull % 100003);
    return v;
}
inline std::string replay_hint(uint64_t seed) {
    return "seed " + std::to_string(seed) + " (replay: SCENIC_SEED=" + std::to_string(seed) + ")";
}

// A pause pattern decides, per cycle, whether a driver idles (source) or back-pressures (sink).
class Pause {
  public:
    static Pause none() { return Pause(Kind::None); }
    // paused when bit (cycle % period) of `mask` is set
    static Pause mask(uint32_t mask, unsigned period) {
        Pause p(Kind::Mask);
        p.mask_ = mask;
        p.period_ = period;
        return p;
    }
    // independent per cycle with probability prob
    static Pause random(double prob, uint64_t seed) {
        Pause p(Kind::Random);
        p.prob_ = prob;
        p.rng_.seed(seed);
        return p;
    }
    // bursty: two-state Markov chain, mean run lengths run_on (not paused) and run_off (paused)
    static Pause bursty(double run_on, double run_off, uint64_t seed) {
        Pause p(Kind::Bursty);
        p.p_leave_on_ = 1.0 / run_on;
        p.p_leave_off_ = 1.0 / run_off;
        p.rng_.seed(seed);
        return p;
    }
    bool operator()() {
        const uint64_t c = cycle_++;
        switch (kind_) {
            case Kind::None:
                return false;
            case Kind::Mask:
                return (mask_ >> (c % period_)) & 1u;
            case Kind::Random:
                return std::bernoulli_distribution(prob_)(rng_);
            case Kind::Bursty: {
                const double leave = paused_ ? p_leave_off_ : p_leave_on_;
                if (std::bernoulli_distribution(leave)(rng_)) paused_ = !paused_;
                return paused_;
            }
        }
        return false;
    }

  private:
    enum class Kind { None, Mask, Random, Bursty };
    explicit Pause(Kind k) : kind_(k) {}
    Kind kind_;
    uint32_t mask_ = 0;
    unsigned period_ = 1;
    double prob_ = 0, p_leave_on_ = 0, p_leave_off_ = 0;
    bool paused_ = false;
    uint64_t cycle_ = 0;
    std::mt19937_64 rng_;
};

// The named pause mixes every streaming test is run over.
inline std::vector<std::pair<std::string, std::function<Pause(uint64_t)>>> pause_mixes() {
    return {
        {"none", [](uint64_t) { return Pause::none(); }},
        {"alt", [](uint64_t) { return Pause::mask(0b01, 2); }},
        {"r30", [](uint64_t s) { return Pause::random(0.3, s); }},
        {"r80", [](uint64_t s) { return Pause::random(0.8, s); }},
        {"bursty", [](uint64_t s) { return Pause::bursty(12, 5, s); }},
    };
}

// ---- bit/byte access for Verilator signal types (CData/SData/IData/QData/VlWide) ----
template <typename T>
inline void set_bit(T& sig, unsigned i, bool v) {
    if (v)
        sig |= (T(1) << i);
    else
        sig &= ~(T(1) << i);
}
template <std::size_t N>
inline void set_bit(VlWide<N>& sig, unsigned i, bool v) {
    if (v)
        sig[i / 32] |= (1u << (i % 32));
    else
        sig[i / 32] &= ~(1u << (i % 32));
}
template <typename T>
inline bool get_bit(const T& sig, unsigned i) {
    return (sig >> i) & 1;
}
template <std::size_t N>
inline bool get_bit(const VlWide<N>& sig, unsigned i) {
    return (sig[i / 32] >> (i % 32)) & 1u;
}
template <typename T>
inline void set_byte(T& sig, unsigned i, uint8_t b) {
    sig = T(sig & ~(T(0xff) << (8 * i))) | T(T(b) << (8 * i));
}
template <std::size_t N>
inline void set_byte(VlWide<N>& sig, unsigned i, uint8_t b) {
    const unsigned w = i / 4, s = 8 * (i % 4);
    sig[w] = (sig[w] & ~(0xffu << s)) | (uint32_t(b) << s);
}
template <typename T>
inline uint8_t get_byte(const T& sig, unsigned i) {
    return uint8_t(sig >> (8 * i));
}
template <std::size_t N>
inline uint8_t get_byte(const VlWide<N>& sig, unsigned i) {
    return uint8_t(sig[i / 4] >> (8 * (i % 4)));
}
template <typename T>
inline void set_field(T& sig, unsigned lsb, unsigned w, uint64_t v) {
    for (unsigned i = 0; i < w; ++i) set_bit(sig, lsb + i, (v >> i) & 1);
}
template <typename T>
inline uint64_t get_field(const T& sig, unsigned lsb, unsigned w) {
    uint64_t v = 0;
    for (unsigned i = 0; i < w; ++i) v |= uint64_t(get_bit(sig, lsb + i)) << i;
    return v;
}

// One AXI4-Stream beat as the drivers see it (bytes beyond the frame are absent, not zero).
struct Beat {
    std::vector<uint8_t> bytes;  // tkeep is contiguous from lane 0: bytes.size() lanes valid
    bool last = false;
};

// Splits frames into beats of `lanes` bytes; presents one beat and holds it until accepted.
class AxisSource {
  public:
    AxisSource(unsigned lanes, Pause pause) : lanes_(lanes), pause_(std::move(pause)) {}
    void push(const Frame& f) {
        for (size_t off = 0; off < f.size() || off == 0; off += lanes_) {
            Beat b;
            const size_t n = std::min<size_t>(lanes_, f.size() - off);
            b.bytes.assign(f.begin() + long(off), f.begin() + long(off + n));
            b.last = off + n >= f.size();
            beats_.push_back(std::move(b));
            if (f.empty()) break;
        }
    }
    // Call once per cycle before eval(): decides what is presented this cycle.
    void drive() {
        if (!valid_) {
            const bool paused = pause_();
            valid_ = !paused && !beats_.empty();
        } else {
            (void)pause_();  // keep the pattern aligned to cycles
        }
    }
    bool valid() const { return valid_; }
    const Beat& beat() const { return beats_.front(); }
    // Call after sampling, before the edge: `ready` is the DUT's tready this cycle.
    void advance(bool ready) {
        if (valid_ && ready) {
            beats_.pop_front();
            valid_ = false;
        }
    }
    bool idle() const { return beats_.empty() && !valid_; }
    size_t pending_beats() const { return beats_.size(); }

  private:
    unsigned lanes_;
    Pause pause_;
    std::deque<Beat> beats_;
    bool valid_ = false;
};

// Collects beats into frames; drives tready from a pause pattern.
class AxisSink {
  public:
    explicit AxisSink(Pause pause) : pause_(std::move(pause)) {}
    bool drive() { return ready_ = !pause_(); }
    bool ready() const { return ready_; }
    void accept(const Beat& b) {
        cur_.insert(cur_.end(), b.bytes.begin(), b.bytes.end());
        ++beats_;
        if (b.last) {
            frames.push_back(std::move(cur_));
            cur_.clear();
        }
    }
    std::vector<Frame> frames;
    uint64_t beats() const { return beats_; }

  private:
    Pause pause_;
    Frame cur_;
    bool ready_ = true;
    uint64_t beats_ = 0;
};

// Writes a beat into Verilator tdata/tkeep/tlast signals of `lanes` lanes, at lane offset `base`
// (for flattened multi-port buses). Unused lanes get a filler byte (never zero-cleaned data).
template <typename D, typename K>
inline void put_beat(D& tdata, K& tkeep, const Beat& b, unsigned lanes, unsigned base = 0) {
    for (unsigned i = 0; i < lanes; ++i) {
        const bool v = i < b.bytes.size();
        set_byte(tdata, base + i, v ? b.bytes[i] : uint8_t(0xa5));
        set_bit(tkeep, base + i, v);
    }
}
template <typename D, typename K>
inline Beat get_beat(const D& tdata, const K& tkeep, bool last, unsigned lanes, unsigned base = 0) {
    Beat b;
    b.last = last;
    for (unsigned i = 0; i < lanes; ++i)
        if (get_bit(tkeep, base + i)) b.bytes.push_back(get_byte(tdata, base + i));
    return b;
}

}  // namespace scenic::tb
