// tsm-tool launch's command line apart from running it: the options it declares and what its
// --grid, --block and --arg strings mean. Free of the backends, so that the fuzz target
// (tests/fuzz/fuzz_launch_args.cpp) drives exactly the code tsm-tool runs.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/occupancy.hpp"

namespace tsm::tools {

/// Waveforms and timelines of the rtl backend (docs/waveforms.md), for launch and run.
struct WaveOptions {
  std::string trace;                 // --trace FILE.fst
  uint64_t from = 0;                 // --trace-from CLOCK
  uint64_t to = UINT64_MAX;          // --trace-to CLOCK
  unsigned depth = 0;                // --trace-depth N (0: all levels)
  bool on_fail = false;              // --trace-on-fail: trace the window before a failure only
  uint64_t window = 5000;            // --trace-window N: its clocks
  std::string timeline;              // --timeline FILE.json
  bool any() const { return !trace.empty() || on_fail || !timeline.empty(); }
};

/// Declares the WaveOptions options on `app`.
void declare_wave_options(CLI::App& app, WaveOptions& w);

struct LaunchOptions {
  std::string kernel_file;
  std::string kernel;
  std::string grid = "1";
  std::string block = "1";
  uint32_t shared = 0;
  std::string backend = "golden";
  std::string config = "g80";
  uint32_t sms = 0;
  std::string sched = "lrr";  // rtl, netlist: the warp-scheduling policy
  bool lockstep = true;
  std::vector<std::string> verilator_args;
  uint32_t mutant = 0;
  std::string frontend = "auto";
  uint32_t maxrregcount = 0;  // .cu/.ptx: the translator's register budget (0: what the block allows)
  uint64_t budget = 200'000'000;
  std::vector<std::string> args;
  std::vector<std::string> prints;  // --print N[:TYPE[:COUNT]]
  WaveOptions wave;
  std::string port = "/dev/ttyUSB0";  // board: the UART's serial port
  uint32_t baud = 3000000;
  double board_timeout = 1.0;
};

/// Declares the board backend's options (--port, --baud, --board-timeout) on `app`.
void declare_board_options(CLI::App& app, std::string& port, uint32_t& baud, double& timeout);

/// Declares --sched (the warp-scheduling policy of the rtl and netlist backends) on `app`.
void declare_sched_option(CLI::App& app, std::string& sched);

/// Declares launch's options on `launch`, bound to `o` (`backend_help` describes --backend).
void declare_launch_options(CLI::App& launch, LaunchOptions& o, const std::string& backend_help);

/// The element types of generated buffers and of --print / dump.
enum class ElemType { I32, U32, F32 };

/// "i32", "u32" or "f32" -> the type; nullopt for anything else.
std::optional<ElemType> parse_elem_type(const std::string& text);

/// One --arg, decoded. Scalars carry their little-endian bytes in `bits` (4 or 8 of them).
struct LaunchArg {
  enum class Kind { I32, U32, F32, I64, U64, Buf, Zeros, Iota, Fill, Rand };
  Kind kind = Kind::U32;
  std::string spec;      // the --arg text, for messages
  uint64_t bits = 0;     // scalar value; fill: the element's bits
  std::string in_file;   // buf: the file that fills the buffer
  uint64_t bytes = 0;    // zeros, iota, fill, rand: the buffer's size (> 0)
  std::string out_file;  // buf, zeros, iota, fill, rand: where the buffer goes after the launch ("" = nowhere)
  ElemType elem = ElemType::U32;  // iota, fill, rand: the elements' type
  uint64_t count = 0;             // iota, fill, rand: the number of elements
  uint64_t seed = 1;              // rand: the generator's seed
};

/// The initial bytes of a generated buffer (iota, fill, rand), little-endian: iota i = i; fill all
/// equal to the value; rand from std::mt19937 seeded with `seed`, i32 and u32 over their whole
/// range, f32 uniform in [-1, 1) on a 2^-23 grid (docs/runtime.md, Command line).
std::vector<uint8_t> generate_buffer(const LaunchArg& arg);

/// One --print: the 1-based position of a buffer argument, its element type and how many to show.
struct PrintSpec {
  std::string spec;
  size_t arg = 0;
  ElemType elem = ElemType::U32;
  uint64_t count = 16;
};

/// "N[:TYPE[:COUNT]]" (TYPE i32, u32, f32, default the generated type or u32; COUNT default 16, 0 = all).
PrintSpec parse_print(const std::string& text, const std::vector<LaunchArg>& args);

/// `count` elements (all when 0) of `data` as typed values, 8 to a line, each line led by the
/// index of its first element; a float as the shortest text that reads back to it.
std::string format_elements(const std::vector<uint8_t>& data, ElemType elem, uint64_t count);

struct LaunchPlan {
  Dim3 grid, block;
  std::vector<LaunchArg> args;
  std::vector<PrintSpec> prints;
};

/// A command line that means nothing: the message is what the user sees after "error: ".
class LaunchArgError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// --grid, --block and every --arg of `o`, decoded; throws LaunchArgError for the first bad one.
LaunchPlan parse_launch(const LaunchOptions& o);

/// "V" as a signed or unsigned 64-bit number (decimal, 0x hex or 0 octal); throws LaunchArgError
/// naming `spec`.
uint64_t parse_number(const std::string& spec, const std::string& text, bool is_signed);

}  // namespace tsm::tools
