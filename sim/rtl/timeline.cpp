#include "rtl/timeline.hpp"

#include <algorithm>
#include <bit>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "isa/isa.hpp"

namespace tsm::rtl {

namespace {
// Track ids: row * kRowStride + warp (the warp's own row 0 has the warp's number as its id); the
// tracks are sorted warp by warp, rows in order.
constexpr unsigned kRowStride = 1024;  // more than any configuration's warp slots
}  // namespace

void Timeline::begin_launch(const std::string& kernel, const std::vector<uint64_t>& text, uint64_t cycle) {
  launches_.push_back({kernel, text, cycle});
  in_flight_.clear();
}

void Timeline::issue(unsigned sm, const IssueEvent& e, uint64_t cycle) { in_flight_[{sm, e.warp, e.seq}] = cycle; }

void Timeline::stalls(unsigned sm, unsigned bits, uint64_t cycle) {
  if (sm >= last_stalls_.size()) last_stalls_.resize(sm + 1, 0);
  if (last_stalls_[sm] == bits) return;
  last_stalls_[sm] = bits;
  stall_samples_.emplace_back(sm, cycle, bits);
}

void Timeline::retire(const CommitEvent& e, uint64_t cycle) {
  uint64_t issued = cycle;
  if (auto it = in_flight_.find({e.sm, e.warp, e.seq}); it != in_flight_.end()) {
    issued = it->second;
    in_flight_.erase(it);
  }
  const unsigned launch = launches_.empty() ? 0 : static_cast<unsigned>(launches_.size() - 1);
  slices_.push_back({e.sm, e.warp, e.seq, e.pc, e.active, e.exec, issued, cycle, launch, true});
  ++instructions_;
}

void Timeline::write(const std::string& path, uint64_t end_cycle) const {
  using nlohmann::json;
  json events = json::array();
  std::map<std::pair<unsigned, unsigned>, bool> tracks;
  std::map<unsigned, bool> sms;
  const auto name_of = [&](const Slice& s, std::string* text) {
    std::string mnemonic = "?";
    *text = "(outside the code)";
    if (s.launch < launches_.size() && s.pc < launches_[s.launch].text.size()) {
      const uint64_t word = launches_[s.launch].text[s.pc];
      *text = isa::disassemble(word, s.pc);
      if (const isa::InsnInfo* insn = isa::find_opcode(static_cast<uint8_t>(word & 0xFF))) mnemonic = insn->mnemonic;
    }
    return mnemonic;
  };
  const auto unit_of = [&](const Slice& s) -> std::string {
    if (s.launch < launches_.size() && s.pc < launches_[s.launch].text.size())
      if (const isa::InsnInfo* insn = isa::find_opcode(static_cast<uint8_t>(launches_[s.launch].text[s.pc] & 0xFF)))
        return isa::gen::kUnitNames[static_cast<size_t>(insn->unit)];
    return "?";
  };
  // The time base of every TeslaSM view: one clock of the GPU is one nanosecond (the trace format's
  // timestamps are microseconds), as in the FST waveforms (docs/waveforms.md §1).
  const auto at = [](uint64_t clock) { return static_cast<double>(clock) / 1000.0; };
  // A warp's instructions overlap (issue, then retirement clocks later, while the next ones issue),
  // which one track of complete slices cannot show: each warp gets as many rows as it has
  // instructions in flight at once, each instruction the first row free at its issue clock.
  std::map<std::pair<unsigned, unsigned>, std::vector<uint64_t>> row_free;  // (sm, warp) -> per row, first free clock
  const auto row_of = [&](const Slice& s, uint64_t end) {
    auto& rows = row_free[{s.sm, s.warp}];
    size_t r = 0;
    while (r < rows.size() && rows[r] > s.issue) ++r;
    if (r == rows.size()) rows.push_back(0);
    rows[r] = end + 1;
    return static_cast<unsigned>(r);
  };
  const auto add_slice = [&](const Slice& s, bool retired, uint64_t end) {
    std::string text;
    const std::string mnemonic = name_of(s, &text);
    const unsigned row = row_of(s, end);
    const unsigned tid = row * kRowStride + s.warp;
    tracks[{s.sm, tid}] = true;
    sms[s.sm] = true;
    json args = {{"warp", s.warp},
                 {"row", row},
                 {"pc", s.pc},
                 {"instruction", text},
                 {"seq", s.seq},
                 {"issue_clock", s.issue},
                 {"kernel", s.launch < launches_.size() ? launches_[s.launch].kernel : std::string()}};
    if (retired) {
      args["retire_clock"] = end;
      args["active"] = fmt::format("{:#010x}", s.active);
      args["executed"] = fmt::format("{:#010x}", s.exec);
      args["executed_lanes"] = std::popcount(s.exec);
    } else {
      args["not_retired"] = true;
    }
    // An instruction lasts from its issue clock to its retirement clock, both included.
    events.push_back({{"name", retired ? mnemonic : mnemonic + " (not retired)"},
                      {"cat", unit_of(s)},
                      {"ph", "X"},
                      {"ts", at(s.issue)},
                      {"dur", at(end - s.issue + 1)},
                      {"pid", s.sm},
                      {"tid", tid},
                      {"args", args}});
    if (retired)
      events.push_back({{"name", "executed lanes"}, {"ph", "C"}, {"ts", at(s.issue)}, {"pid", s.sm}, {"args", {{"lanes", std::popcount(s.exec)}}}});
  };
  // Rows are given in issue order, the instructions still in flight at the end among the others.
  std::vector<Slice> order(slices_.begin(), slices_.end());
  for (const auto& [key, issued] : in_flight_) {
    const auto& [sm, warp, seq] = key;
    order.push_back({sm, warp, seq, 0, 0, 0, issued, end_cycle, static_cast<unsigned>(launches_.empty() ? 0 : launches_.size() - 1), false});
  }
  std::stable_sort(order.begin(), order.end(), [](const Slice& a, const Slice& b) { return a.issue < b.issue; });
  for (const Slice& s : order) add_slice(s, s.retired, s.retired ? s.retire : end_cycle);
  for (const auto& [sm, clock, bits] : stall_samples_) {
    sms[sm] = true;
    events.push_back({{"name", "stalls"},
                      {"ph", "C"},
                      {"ts", at(clock)},
                      {"pid", sm},
                      {"args", {{"scoreboard", (bits & kStallScoreboard) ? 1 : 0}, {"barrier", (bits & kStallBarrier) ? 1 : 0},
                                {"fetch", (bits & kStallFetch) ? 1 : 0}}}});
  }
  for (const auto& [sm, unused] : sms)
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", sm}, {"args", {{"name", fmt::format("SM {}", sm)}}}});
  for (const auto& [track, unused] : tracks) {
    const unsigned warp = track.second % kRowStride, row = track.second / kRowStride;
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", track.first}, {"tid", track.second},
                      {"args", {{"name", row == 0 ? fmt::format("warp {}", warp) : fmt::format("warp {} +{}", warp, row)}}}});
    events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", track.first}, {"tid", track.second},
                      {"args", {{"sort_index", warp * kRowStride + row}}}});
  }
  for (const Launch& l : launches_)
    events.push_back({{"name", "launch " + l.kernel}, {"ph", "i"}, {"s", "g"}, {"ts", at(l.start)}, {"pid", 0}, {"tid", 0}});
  json doc = {{"traceEvents", events},
              {"displayTimeUnit", "ns"},
              {"otherData", {{"time_base", "1 ns = 1 clock of the GPU"}, {"instructions", instructions_}}}};
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw std::runtime_error(fmt::format("{}: cannot write the timeline", path));
  f << doc.dump() << "\n";
  if (!f) throw std::runtime_error(fmt::format("{}: cannot write the timeline", path));
}

}  // namespace tsm::rtl
