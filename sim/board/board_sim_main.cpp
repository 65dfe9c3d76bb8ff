// tsm-board-sim: the Verilated FPGA board top (fpga/rtl/tsm_board.sv) behind a virtual serial port
// (docs/fpga-board.md §5). It opens a pty pair, prints the slave's path (/dev/pts/N) for the host
// tools' --port, and clocks the model, moving bytes between the pty and the board's UART pins at
// the bit rate: host bytes go out on uart_rx_i (start bit, 8 data bits LSB first, stop bit), and
// uart_tx_o is sampled mid-bit back into bytes. While nothing is in flight and the GPU is idle it
// sleeps in poll() instead of clocking, so an idle simulator costs no CPU.
//
// The model class and header, and the clocks per UART bit the model was built with, come from the
// build: TSM_BOARD_MODEL_CLASS, TSM_BOARD_MODEL_HEADER, TSM_BOARD_CLOCKS_PER_BIT.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <verilated.h>

#include "board/protocol.hpp"

#ifndef TSM_BOARD_MODEL_CLASS
#error "define TSM_BOARD_MODEL_CLASS (the Verilated tsm_board's class, e.g. Vtsm_board_small)"
#endif
#ifndef TSM_BOARD_MODEL_HEADER
#define TSM_BOARD_STR2(x) #x
#define TSM_BOARD_STR(x) TSM_BOARD_STR2(x)
#define TSM_BOARD_MODEL_HEADER TSM_BOARD_STR(TSM_BOARD_MODEL_CLASS.h)
#endif
#ifndef TSM_BOARD_CLOCKS_PER_BIT
#error "define TSM_BOARD_CLOCKS_PER_BIT (ClockHz / Baud of the Verilated board)"
#endif
#include TSM_BOARD_MODEL_HEADER

namespace {

using Model = TSM_BOARD_MODEL_CLASS;
using Clock = std::chrono::steady_clock;
using tsm::board::DecodeEvent;
using tsm::board::FrameDecoder;

constexpr unsigned kClocksPerBit = TSM_BOARD_CLOCKS_PER_BIT;
static_assert(kClocksPerBit >= 4, "the UART needs at least 4 clocks a bit");
constexpr uint64_t kResetClocks = 8;
// An outstanding request (or a partial one) the board has not answered after this many clocks is
// given up for the idle test: the board abandoned it, and the simulator may sleep again. Well past
// the bridge's inter-byte timeout (IdleClocks = ClockHz/100: Baud/1000 byte times, 1000 at 1 Mbaud)
// and its MMIO read timeout (1024 clocks), so that the board sees a partial frame's gap as it would.
constexpr uint64_t kAbandonClocks = 50'000 * kClocksPerBit;
// Quiet clocks after the last UART bit before the simulator may sleep (the bridge settles).
constexpr uint64_t kSettleClocks = 64 * kClocksPerBit;
constexpr int kIdlePollMs = 10;
// With no client on the slave, poll() cannot wait for one (POLLHUP at once): sleep this long instead.
constexpr int kHungUpSleepMs = 50;
constexpr std::size_t kMaxQueued = 8192;

volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_signal(int sig) { g_stop = sig; }

[[noreturn]] void die(const std::string& message) {
  fmt::print(stderr, "error: {}\n", message);
  std::exit(1);
}

/// Host bytes onto the board's uart_rx_i, one bit every kClocksPerBit clocks.
class UartSerializer {
 public:
  bool busy() const { return bit_ < 10; }
  void start(uint8_t byte) {
    frame_ = static_cast<uint16_t>(1u << 9 | static_cast<unsigned>(byte) << 1);  // stop, data, start (0)
    bit_ = 0;
    left_ = kClocksPerBit;
  }
  /// The line level for this clock; call once per clock.
  uint8_t level() {
    if (!busy()) return 1;
    const uint8_t v = (frame_ >> bit_) & 1;
    if (--left_ == 0) {
      ++bit_;
      left_ = kClocksPerBit;
    }
    return v;
  }

 private:
  uint16_t frame_ = 0;
  unsigned bit_ = 10;
  unsigned left_ = 0;
};

/// The board's uart_tx_o back into bytes: a falling edge starts a byte, bits are sampled mid-bit.
class UartDeserializer {
 public:
  bool busy() const { return state_ != kIdle; }
  uint64_t framing_errors() const { return framing_errors_; }
  /// Feed this clock's line level; returns a byte when its stop bit has been sampled.
  std::optional<uint8_t> sample(uint8_t line) {
    switch (state_) {
      case kIdle:
        if (line == 0) {
          state_ = kStart;
          count_ = kClocksPerBit / 2;  // to the middle of the start bit
        }
        return std::nullopt;
      case kStart:
        if (--count_ != 0) return std::nullopt;
        if (line != 0) {  // a glitch, not a start bit
          state_ = kIdle;
          return std::nullopt;
        }
        state_ = kData;
        bits_ = 0;
        shift_ = 0;
        count_ = kClocksPerBit;
        return std::nullopt;
      case kData:
        if (--count_ != 0) return std::nullopt;
        shift_ = static_cast<uint8_t>(shift_ >> 1 | (line ? 0x80 : 0));
        count_ = kClocksPerBit;
        if (++bits_ == 8) state_ = kStop;
        return std::nullopt;
      case kStop:
        if (--count_ != 0) return std::nullopt;
        state_ = kIdle;
        if (line == 0) {
          ++framing_errors_;
          state_ = kBreak;  // wait for the line to go high before the next start bit
        }
        return shift_;
      case kBreak:
        if (line) state_ = kIdle;
        return std::nullopt;
    }
    return std::nullopt;
  }

 private:
  enum State { kIdle, kStart, kData, kStop, kBreak } state_ = kIdle;
  unsigned count_ = 0, bits_ = 0;
  uint8_t shift_ = 0;
  uint64_t framing_errors_ = 0;
};

struct Options {
  std::string port_file;
  std::string link;
  bool exit_on_close = false;
  double max_seconds = 0;
  int verbose = 0;
};

/// Logs the frames of one direction (--verbose).
class FrameLog {
 public:
  FrameLog(const char* direction, bool requests)
      : direction_(direction), requests_(requests),
        decoder_(requests ? tsm::board::kRequestStart : tsm::board::kReplyStart,
                 requests ? tsm::board::kMaxRequestPayload : tsm::board::kMaxReplyPayload) {}
  /// Returns the number of complete frames (good or bad CRC) the bytes ended.
  unsigned feed(uint8_t byte, bool log) {
    unsigned frames = 0;
    for (const DecodeEvent& e : decoder_.feed(byte)) {
      if (e.kind == DecodeEvent::Kind::kGarbage) {
        if (log) fmt::print(stderr, "tsm-board-sim: {}: {} bytes outside a frame: {}\n", direction_, e.skipped, tsm::board::hex_bytes(e.raw, 16));
        continue;
      }
      ++frames;
      if (!log) continue;
      const auto& f = e.frame;
      const std::string kind = requests_ ? tsm::board::command_name(f.code) : tsm::board::status_name(f.code);
      fmt::print(stderr, "tsm-board-sim: {}: {} {}, SEQ {}, {} payload bytes{}{}\n", direction_, requests_ ? "request" : "reply",
                 kind, f.seq, f.payload.size(), f.payload.empty() ? "" : ": " + tsm::board::hex_bytes(f.payload, 16),
                 e.kind == DecodeEvent::Kind::kBadCrc ? fmt::format(" (bad CRC 0x{:04x}, computed 0x{:04x})", e.crc_received, e.crc_computed) : "");
    }
    return frames;
  }
  bool in_frame() const { return decoder_.in_frame(); }

 private:
  const char* direction_;
  bool requests_;
  FrameDecoder decoder_;
};

/// The pty pair: the master for the simulator, the slave's path for the host tools.
struct Pty {
  int master = -1;
  std::string slave;
};

Pty open_pty() {
  Pty p;
  p.master = posix_openpt(O_RDWR | O_NOCTTY);
  if (p.master < 0) die(fmt::format("cannot open a pseudo-terminal (posix_openpt): {}", std::strerror(errno)));
  if (grantpt(p.master) != 0 || unlockpt(p.master) != 0)
    die(fmt::format("cannot set up the pseudo-terminal (grantpt/unlockpt): {}", std::strerror(errno)));
  char name[256];
  if (ptsname_r(p.master, name, sizeof name) != 0) die(fmt::format("cannot name the pseudo-terminal's slave: {}", std::strerror(errno)));
  p.slave = name;
  // Raw mode on the slave side, before any client opens it: no echo, no line editing, no CR/LF
  // translation in either direction. The settings stay with the pty after this close.
  const int s = ::open(name, O_RDWR | O_NOCTTY);
  if (s < 0) die(fmt::format("cannot open the pseudo-terminal's slave {}: {}", p.slave, std::strerror(errno)));
  termios tio{};
  if (tcgetattr(s, &tio) != 0) die(fmt::format("tcgetattr on {}: {}", p.slave, std::strerror(errno)));
  cfmakeraw(&tio);
  tio.c_cflag |= CLOCAL | CREAD;
  tio.c_cc[VMIN] = 1;
  tio.c_cc[VTIME] = 0;
  if (tcsetattr(s, TCSANOW, &tio) != 0) die(fmt::format("tcsetattr on {}: {}", p.slave, std::strerror(errno)));
  ::close(s);
  const int flags = fcntl(p.master, F_GETFL);
  fcntl(p.master, F_SETFL, flags | O_NONBLOCK);
  fcntl(p.master, F_SETFD, FD_CLOEXEC);
  return p;
}

void write_port_file(const std::string& path, const std::string& slave) {
  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) die(fmt::format("cannot write the port file {}: {}", tmp, std::strerror(errno)));
  fmt::print(f, "{}\n", slave);
  if (std::fclose(f) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0)
    die(fmt::format("cannot write the port file {}: {}", path, std::strerror(errno)));
}

void make_link(const std::string& link, const std::string& slave) {
  struct stat st {};
  if (lstat(link.c_str(), &st) == 0) {
    if (!S_ISLNK(st.st_mode)) die(fmt::format("--link {}: the path exists and is not a symbolic link; choose another path", link));
    ::unlink(link.c_str());
  }
  if (symlink(slave.c_str(), link.c_str()) != 0)
    die(fmt::format("cannot make the symbolic link {} -> {}: {}", link, slave, std::strerror(errno)));
}

}  // namespace

int main(int argc, char** argv) {
  // +verilator+... arguments go to the model; the rest to CLI11.
  std::vector<std::string> model_args{argv[0]};
  std::vector<char*> cli_argv{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '+') model_args.emplace_back(argv[i]);
    else cli_argv.push_back(argv[i]);
  }

  Options opt;
  CLI::App app{"Simulates the TeslaSM FPGA board (Verilated tsm_board) behind a virtual serial port (a pty); "
               "+verilator+... arguments go to the model",
               "tsm-board-sim"};
  app.add_option("--port-file", opt.port_file, "also write the serial port's path (/dev/pts/N) into this file, once the board is out of reset");
  app.add_option("--link", opt.link, "also make this symbolic link to the serial port (removed on exit)");
  app.add_flag("--exit-on-close", opt.exit_on_close, "exit when the last client closes the serial port (after one has opened it)");
  app.add_option("--max-seconds", opt.max_seconds, "stop after this many wall-clock seconds (0: no limit)")->check(CLI::NonNegativeNumber);
  app.add_flag("-v,--verbose", opt.verbose, "log each frame on stderr (twice: each byte too)");
  try {
    app.parse(static_cast<int>(cli_argv.size()), cli_argv.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto context = std::make_unique<VerilatedContext>();
  {
    std::vector<const char*> av;
    for (const auto& a : model_args) av.push_back(a.c_str());
    context->commandArgs(static_cast<int>(av.size()), av.data());
  }
  auto model = std::make_unique<Model>(context.get(), "TOP");

  uint64_t clocks = 0;
  auto tick = [&] {
    model->clk_i = 1;
    model->eval();
    model->clk_i = 0;
    model->eval();
    ++clocks;
  };
  model->clk_i = 0;
  model->rst_ni = 0;
  model->uart_rx_i = 1;
  model->eval();
  for (uint64_t i = 0; i < kResetClocks; ++i) tick();
  model->rst_ni = 1;
  model->eval();

  const Pty pty = open_pty();
  if (!opt.link.empty()) make_link(opt.link, pty.slave);
  if (!opt.port_file.empty()) write_port_file(opt.port_file, pty.slave);
  fmt::print("{}\n", pty.slave);
  std::fflush(stdout);
  if (opt.verbose)
    fmt::print(stderr, "tsm-board-sim: serial port {} ({} clocks a bit)\n", pty.slave, kClocksPerBit);

  UartSerializer to_board;
  UartDeserializer from_board;
  FrameLog request_log("host->board", true), reply_log("board->host", false);
  std::deque<uint8_t> in_queue;   // from the pty, not yet sent to the board
  std::vector<uint8_t> out_buf;   // from the board, not yet written to the pty
  uint64_t bytes_in = 0, bytes_out = 0, requests = 0, replies = 0;
  uint64_t outstanding = 0;       // requests the board has not answered yet (as far as the frames show)
  uint64_t last_activity = 0;     // the clock of the last UART bit either way
  bool connected = false;         // a client has had the slave open
  bool hung_up = true;            // no client has the slave open now
  std::string stop_reason;
  const auto t0 = Clock::now();
  double slept = 0;               // wall seconds spent idle in poll()
  const bool log_frames = opt.verbose >= 1, log_bytes = opt.verbose >= 2;

  // Read what the pty has (non-blocking) and note whether a client holds the slave.
  auto pump_in = [&] {
    uint8_t buf[4096];
    while (in_queue.size() < kMaxQueued) {
      const ssize_t n = ::read(pty.master, buf, sizeof buf);
      if (n > 0) {
        hung_up = false;
        connected = true;
        for (ssize_t i = 0; i < n; ++i) {
          in_queue.push_back(buf[i]);
          if (log_bytes) fmt::print(stderr, "tsm-board-sim: host->board {:02x}\n", buf[i]);
        }
        bytes_in += static_cast<uint64_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EIO) {
        hung_up = true;  // no client has the slave open
      } else {
        hung_up = false;  // EAGAIN: the slave is open and has sent nothing more
        connected = true;
      }
      return;
    }
  };
  auto pump_out = [&] {
    std::size_t done = 0;
    while (done < out_buf.size()) {
      const ssize_t n = ::write(pty.master, out_buf.data() + done, out_buf.size() - done);
      if (n > 0) {
        done += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;  // the client reads slowly: keep the rest
      done = out_buf.size();                                          // no client: the bytes are lost, as on a wire
      break;
    }
    out_buf.erase(out_buf.begin(), out_buf.begin() + static_cast<std::ptrdiff_t>(done));
  };

  // Look at the pty once a byte time: the queue holds what the host sent, so the line never starves.
  constexpr uint64_t kIoPeriod = 10 * kClocksPerBit;
  uint64_t next_time_check = 0;
  while (!g_stop) {
    // ---- the pty ------------------------------------------------------------------------------------
    if (clocks % kIoPeriod == 0) {
      if (in_queue.size() < kMaxQueued / 2) pump_in();
      if (!out_buf.empty()) pump_out();
      if (opt.exit_on_close && connected && hung_up && in_queue.empty() && !to_board.busy()) {
        stop_reason = "the client closed the serial port";
        break;
      }
    }
    if (clocks >= next_time_check) {
      next_time_check = clocks + 65536;
      if (opt.max_seconds > 0 && std::chrono::duration<double>(Clock::now() - t0).count() >= opt.max_seconds) {
        stop_reason = fmt::format("--max-seconds {} reached", opt.max_seconds);
        break;
      }
    }

    // ---- idle: sleep in poll() until the host sends something -----------------------------------
    const bool gpu_busy = (model->led_o & 1) != 0;
    const bool line_quiet = in_queue.empty() && !to_board.busy() && !from_board.busy() && model->uart_tx_o && out_buf.empty();
    const uint64_t quiet_clocks = clocks - last_activity;
    const bool waiting_for_board = (outstanding > 0 || request_log.in_frame() || reply_log.in_frame()) && quiet_clocks < kAbandonClocks;
    if (line_quiet && !gpu_busy && !waiting_for_board && quiet_clocks >= kSettleClocks) {
      const auto sleep_start = Clock::now();
      pollfd p{pty.master, POLLIN, 0};
      const int r = ::poll(&p, 1, kIdlePollMs);
      if (r > 0 && (p.revents & POLLIN)) {
        pump_in();
      } else if (r > 0) {
        // POLLHUP: no client has the slave open, and poll does not wait for one to open it.
        hung_up = true;
        if (opt.exit_on_close && connected) {
          stop_reason = "the client closed the serial port";
          break;
        }
        ::usleep(kHungUpSleepMs * 1000);
        pump_in();
      }
      slept += std::chrono::duration<double>(Clock::now() - sleep_start).count();
      if (opt.max_seconds > 0 && std::chrono::duration<double>(Clock::now() - t0).count() >= opt.max_seconds) {
        stop_reason = fmt::format("--max-seconds {} reached", opt.max_seconds);
        break;
      }
      if (in_queue.empty()) continue;
    }

    // ---- one clock ----------------------------------------------------------------------------------
    if (!to_board.busy() && !in_queue.empty()) {
      const uint8_t b = in_queue.front();
      in_queue.pop_front();
      to_board.start(b);
      if (const unsigned n = request_log.feed(b, log_frames)) {
        requests += n;
        outstanding += n;
      }
    }
    const bool sending = to_board.busy();
    model->uart_rx_i = to_board.level();
    tick();
    if (sending || from_board.busy() || !model->uart_tx_o) last_activity = clocks;
    if (const auto byte = from_board.sample(model->uart_tx_o)) {
      out_buf.push_back(*byte);
      ++bytes_out;
      if (log_bytes) fmt::print(stderr, "tsm-board-sim: board->host {:02x}\n", *byte);
      if (reply_log.feed(*byte, log_frames)) {
        ++replies;
        if (outstanding) --outstanding;
      }
      pump_out();
    }
  }
  if (g_stop) stop_reason = fmt::format("signal {} ({})", static_cast<int>(g_stop), strsignal(g_stop));

  if (!out_buf.empty()) pump_out();
  model->final();
  if (!opt.link.empty()) ::unlink(opt.link.c_str());
  ::close(pty.master);
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  fmt::print(stderr,
             "tsm-board-sim: stopped ({}): {} clocks simulated, {} bytes in, {} bytes out ({} requests, {} replies, {} "
             "framing errors), {:.2f} s wall ({:.2f} s of it idle), {:.0f} clocks/s while clocking\n",
             stop_reason, clocks, bytes_in, bytes_out, requests, replies, from_board.framing_errors(), wall, slept,
             wall - slept > 0 ? static_cast<double>(clocks) / (wall - slept) : 0.0);
  return 0;
}
