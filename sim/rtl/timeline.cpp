#include "rtl/timeline.hpp"

#include <bit>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "isa/isa.hpp"

namespace tsm::rtl {

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
  const auto add_slice = [&](const Slice& s, bool retired, uint64_t end) {
    std::string text;
    const std::string mnemonic = name_of(s, &text);
    tracks[{s.sm, s.warp}] = true;
    sms[s.sm] = true;
    json args = {{"pc", s.pc},
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
    // One clock is one microsecond of the trace's time base; an instruction lasts at least a clock.
    events.push_back({{"name", retired ? mnemonic : mnemonic + " (not retired)"},
                      {"cat", unit_of(s)},
                      {"ph", "X"},
                      {"ts", s.issue},
                      {"dur", end - s.issue + 1},
                      {"pid", s.sm},
                      {"tid", s.warp},
                      {"args", args}});
    if (retired)
      events.push_back({{"name", "executed lanes"}, {"ph", "C"}, {"ts", s.issue}, {"pid", s.sm}, {"args", {{"lanes", std::popcount(s.exec)}}}});
  };
  for (const Slice& s : slices_) add_slice(s, true, s.retire);
  for (const auto& [key, issued] : in_flight_) {
    const auto& [sm, warp, seq] = key;
    Slice s{sm, warp, seq, 0, 0, 0, issued, end_cycle, static_cast<unsigned>(launches_.empty() ? 0 : launches_.size() - 1), false};
    add_slice(s, false, end_cycle);
  }
  for (const auto& [sm, clock, bits] : stall_samples_) {
    sms[sm] = true;
    events.push_back({{"name", "stalls"},
                      {"ph", "C"},
                      {"ts", clock},
                      {"pid", sm},
                      {"args", {{"scoreboard", (bits & kStallScoreboard) ? 1 : 0}, {"barrier", (bits & kStallBarrier) ? 1 : 0},
                                {"fetch", (bits & kStallFetch) ? 1 : 0}}}});
  }
  for (const auto& [sm, unused] : sms)
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", sm}, {"args", {{"name", fmt::format("SM {}", sm)}}}});
  for (const auto& [track, unused] : tracks) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", track.first}, {"tid", track.second},
                      {"args", {{"name", fmt::format("warp {}", track.second)}}}});
    events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", track.first}, {"tid", track.second},
                      {"args", {{"sort_index", track.second}}}});
  }
  for (const Launch& l : launches_)
    events.push_back({{"name", "launch " + l.kernel}, {"ph", "i"}, {"s", "g"}, {"ts", l.start}, {"pid", 0}, {"tid", 0}});
  json doc = {{"traceEvents", events},
              {"displayTimeUnit", "ms"},
              {"otherData", {{"time_base", "1 us = 1 clock of the GPU"}, {"instructions", instructions_}}}};
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw std::runtime_error(fmt::format("{}: cannot write the timeline", path));
  f << doc.dump() << "\n";
  if (!f) throw std::runtime_error(fmt::format("{}: cannot write the timeline", path));
}

}  // namespace tsm::rtl
