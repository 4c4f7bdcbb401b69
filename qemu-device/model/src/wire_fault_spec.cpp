// SPDX-License-Identifier: MIT
#include "scenic/wire_fault_spec.hpp"

#include <array>
#include <charconv>
#include <stdexcept>
#include <string>
#include <utility>

namespace scenic::wire {

namespace {

constexpr std::array<std::pair<std::string_view, Action>, 6> kActions{{
    {"drop", Action::kDrop},
    {"dup", Action::kDup},
    {"reorder", Action::kReorder},
    {"delay", Action::kDelay},
    {"corrupt", Action::kCorrupt},
    {"ecn", Action::kEcn},
}};

class RuleParser {
  public:
    RuleParser(size_t index, std::string_view text) : index_(index), text_(text) {}

    Rule parse() {
        if (text_.empty()) {
            fail("empty rule");
        }
        const auto fields = split(text_, ':');
        if (fields.size() < 2) {
            fail("expected DIR:ACTION[:KEY=VALUE...]");
        }
        Rule r;
        if (fields[0] == "rx") {
            r.dir = Dir::kRx;
        } else if (fields[0] == "tx") {
            r.dir = Dir::kTx;
        } else {
            fail("unknown direction \"" + std::string(fields[0]) + "\" (rx, tx)");
        }
        r.action = action(fields[1]);
        for (size_t i = 2; i < fields.size(); ++i) {
            key_value(r, fields[i]);
        }
        check(r);
        return r;
    }

  private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::invalid_argument("scenic: wire-faults rule " + std::to_string(index_ + 1) +
                                    " \"" + std::string(text_) + "\": " + what);
    }

    Action action(std::string_view name) const {
        for (const auto& [n, a] : kActions) {
            if (n == name) {
                return a;
            }
        }
        fail("unknown action \"" + std::string(name) +
             "\" (drop, dup, reorder, delay, corrupt, ecn)");
    }

    // Decimal or 0x hex, within [lo, hi].
    uint64_t number(std::string_view key, std::string_view v, uint64_t lo, uint64_t hi) const {
        int base = 10;
        std::string_view digits = v;
        if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
            base = 16;
            digits.remove_prefix(2);
        }
        uint64_t n = 0;
        const auto [end, ec] =
            std::from_chars(digits.data(), digits.data() + digits.size(), n, base);
        if (digits.empty() || ec == std::errc::invalid_argument ||
            end != digits.data() + digits.size()) {
            fail(std::string(key) + "=" + std::string(v) + ": not a number (decimal or 0x hex)");
        }
        if (ec == std::errc::result_out_of_range || n < lo || n > hi) {
            fail(std::string(key) + "=" + std::string(v) + " out of range (" + std::to_string(lo) +
                 ".." + std::to_string(hi) + ")");
        }
        return n;
    }

    void key_value(Rule& r, std::string_view field) {
        const size_t eq = field.find('=');
        if (eq == std::string_view::npos || eq == 0) {
            fail("field \"" + std::string(field) + "\" is not KEY=VALUE");
        }
        const std::string_view key = field.substr(0, eq);
        const std::string_view v = field.substr(eq + 1);
        const std::string k(key);
        if (seen_.find(";" + k + ";") != std::string::npos) {
            fail("key " + k + " given twice");
        }
        if (key == "ppm") {
            r.ppm = static_cast<uint32_t>(number(key, v, 0, 1'000'000));
        } else if (key == "nth") {
            r.nth = number(key, v, 1, UINT32_MAX);
            has_nth_ = true;
        } else if (key == "count") {
            r.count = number(key, v, 0, UINT32_MAX);
            has_count_ = true;
        } else if (key == "qp") {
            r.qp = static_cast<uint32_t>(number(key, v, 0, 0xffffff));
        } else if (key == "opcode") {
            r.opcode = static_cast<uint8_t>(number(key, v, 0, 0xff));
        } else if (key == "psn") {
            r.psn = static_cast<uint32_t>(number(key, v, 0, 0xffffff));
        } else if (key == "us") {
            r.delay_us = number(key, v, 0, kMaxDelayUs);
            has_us_ = true;
        } else if (key == "depth") {
            r.depth = static_cast<uint32_t>(number(key, v, 1, kMaxReorderDepth));
            has_depth_ = true;
        } else {
            fail("unknown key \"" + k + "\" (ppm, nth, count, qp, opcode, psn, us, depth)");
        }
        seen_ += ";" + k + ";";
    }

    void check(const Rule& r) const {
        if (r.ppm && (has_nth_ || has_count_)) {
            fail("ppm excludes nth and count");
        }
        if (has_us_ && r.action != Action::kDelay) {
            fail("key us only applies to delay");
        }
        if (has_depth_ && r.action != Action::kReorder) {
            fail("key depth only applies to reorder");
        }
    }

    size_t index_;
    std::string_view text_;
    std::string seen_;
    bool has_nth_ = false;
    bool has_count_ = false;
    bool has_us_ = false;
    bool has_depth_ = false;
};

}  // namespace

std::string_view to_string(Dir d) { return d == Dir::kRx ? "rx" : "tx"; }

std::string_view to_string(Action a) {
    for (const auto& [n, act] : kActions) {
        if (act == a) {
            return n;
        }
    }
    return "?";
}

std::vector<Rule> parse_wire_faults(std::string_view spec) {
    std::vector<Rule> rules;
    if (spec.empty()) {
        return rules;
    }
    const auto texts = split(spec, ';');
    for (size_t i = 0; i < texts.size(); ++i) {
        rules.push_back(RuleParser(i, texts[i]).parse());
    }
    return rules;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    size_t start = 0;
    for (;;) {
        const size_t end = s.find(sep, start);
        out.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
        if (end == std::string_view::npos) {
            return out;
        }
        start = end + 1;
    }
}

}  // namespace scenic::wire
